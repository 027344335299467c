import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteSession } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler({ handler: 'sessions/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteSession(auth, params.id)),
);
