import { httpHandler, page } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { listLinkedMetrics } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(
  { handler: 'specifications/list-metrics', params: IdParams },
  async ({ auth, params }) => page(await listLinkedMetrics(auth, params.id)),
);
