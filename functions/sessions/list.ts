import { sessionsRoutes } from '../../shared/routes/sessions.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listSessions } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler(sessionsRoutes.list, async ({ auth, query }) =>
  page(await listSessions(auth, query)),
);
