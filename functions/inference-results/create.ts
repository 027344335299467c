import { created, httpHandler } from '../../shared/http/handler.js';
import { TurnCreate } from '../../shared/schemas/sessions.js';
import { createTurn } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler({ handler: 'inference-results/create', body: TurnCreate }, async ({ auth, body }) =>
  created(await createTurn(auth, body)),
);
