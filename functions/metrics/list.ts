import { metricsRoutes } from '../../shared/routes/metrics.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listMetrics } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler(metricsRoutes.list, async ({ auth, query }) => page(await listMetrics(auth, query)));
