import { sessionsRoutes } from '../../shared/routes/sessions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateSession } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler(sessionsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateSession(auth, params.id, body)),
);
