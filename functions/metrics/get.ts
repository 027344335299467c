import { metricsRoutes } from '../../shared/routes/metrics.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getMetric } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler(metricsRoutes.get, async ({ auth, params }) => ok(await getMetric(auth, params.id)));
