import { sessionsRoutes } from '../../shared/routes/sessions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { metricCompatibility } from '../../shared/domain/evaluation/compatibility.js';

export const handler = httpHandler(sessionsRoutes.metricCompatibility, async ({ auth, params, query }) =>
  ok(await metricCompatibility(auth, params.id, query.limit)),
);
