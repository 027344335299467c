import { sessionsRoutes } from '../../shared/routes/sessions.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createSession } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler(sessionsRoutes.create, async ({ auth, body }) =>
  created(await createSession(auth, body)),
);
