import { created, httpHandler } from '../../shared/http/handler.js';
import { SessionCreate } from '../../shared/schemas/sessions.js';
import { createSession } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler({ handler: 'sessions/create', body: SessionCreate }, async ({ auth, body }) =>
  created(await createSession(auth, body)),
);
