import { metricsRoutes } from '../../shared/routes/metrics.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { metricAgreement } from '../../shared/domain/review/agreement.js';

export const handler = httpHandler(metricsRoutes.agreement, async ({ auth, params, query }) =>
  ok(await metricAgreement(auth, params.id, query)),
);
