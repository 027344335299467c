import { sessionsRoutes } from '../../shared/routes/sessions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getSessionById } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler(sessionsRoutes.get, async ({ auth, params }) =>
  ok(await getSessionById(auth, params.id)),
);
