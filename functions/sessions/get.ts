import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getSessionById } from '../../shared/domain/sessions/sessions.js';

export const handler = httpHandler({ handler: 'sessions/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getSessionById(auth, params.id)),
);
