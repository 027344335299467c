import { metricsRoutes } from '../../shared/routes/metrics.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateMetric } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler(metricsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateMetric(auth, params.id, body)),
);
