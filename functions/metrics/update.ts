import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { MetricUpdate } from '../../shared/schemas/metrics.js';
import { updateMetric } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler(
  { handler: 'metrics/update', params: IdParams, body: MetricUpdate },
  async ({ auth, params, body }) => ok(await updateMetric(auth, params.id, body)),
);
