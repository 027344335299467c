import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { MetricLinkBody } from '../../shared/schemas/specifications.js';
import { unlinkMetrics } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(
  { handler: 'specifications/unlink-metrics', params: IdParams, body: MetricLinkBody },
  async ({ auth, params, body }) => ok(await unlinkMetrics(auth, params.id, body)),
);
