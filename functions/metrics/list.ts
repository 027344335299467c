import { httpHandler, page } from '../../shared/http/handler.js';
import { MetricListQuery } from '../../shared/schemas/metrics.js';
import { listMetrics } from '../../shared/domain/metrics/metrics.js';

export const handler = httpHandler({ handler: 'metrics/list', query: MetricListQuery }, async ({ auth, query }) =>
  page(await listMetrics(auth, query)),
);
