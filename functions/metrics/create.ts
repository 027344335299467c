import { created, httpHandler } from '../../shared/http/handler.js';
import { MetricCreate } from '../../shared/schemas/metrics.js';
import { createMetric } from '../../shared/domain/metrics/create-metric.js';

export const handler = httpHandler({ handler: 'metrics/create', body: MetricCreate }, async ({ auth, body }) =>
  created(await createMetric(auth, body)),
);
