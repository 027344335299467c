import { httpHandler, page } from '../../shared/http/handler.js';
import { SessionListQuery } from '../../shared/schemas/sessions.js';
import { listSessions } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler({ handler: 'sessions/list', query: SessionListQuery }, async ({ auth, query }) =>
  page(await listSessions(auth, query)),
);
