import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getMetric } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler({ handler: 'metrics/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getMetric(auth, params.id)),
);
