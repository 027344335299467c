import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { SessionUpdate } from '../../shared/schemas/sessions.js';
import { updateSession } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler(
  { handler: 'sessions/update', params: IdParams, body: SessionUpdate },
  async ({ auth, params, body }) => ok(await updateSession(auth, params.id, body)),
);
