import { sessionsRoutes } from '../../shared/routes/sessions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteSession } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler(sessionsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteSession(auth, params.id)),
);
