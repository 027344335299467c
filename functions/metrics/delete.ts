import { metricsRoutes } from '../../shared/routes/metrics.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteMetric } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler(metricsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteMetric(auth, params.id)),
);
