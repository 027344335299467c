import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteMetric } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler({ handler: 'metrics/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteMetric(auth, params.id)),
);
