import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { TurnUpdate } from '../../shared/schemas/sessions.js';
import { updateTurn } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(
  { handler: 'inference-results/update', params: IdParams, body: TurnUpdate },
  async ({ auth, params, body }) => ok(await updateTurn(auth, params.id, body)),
);
