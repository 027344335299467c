import { created, httpHandler } from '../../shared/http/handler.js';
import { TurnBatch } from '../../shared/schemas/sessions.js';
import { createTurns } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler({ handler: 'inference-results/batch', body: TurnBatch }, async ({ auth, body }) =>
  created(await createTurns(auth, body)),
);
