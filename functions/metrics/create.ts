import { metricsRoutes } from '../../shared/routes/metrics.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createMetric } from '../../shared/domain/metrics/create-metric.js';

export const handler = httpHandler(metricsRoutes.create, async ({ auth, body }) =>
  created(await createMetric(auth, body)),
);
