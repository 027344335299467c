import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getTurn } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler({ handler: 'inference-results/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getTurn(auth, params.id)),
);
