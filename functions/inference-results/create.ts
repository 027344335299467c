import { inferenceResultsRoutes } from '../../shared/routes/inference-results.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createTurn } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(inferenceResultsRoutes.create, async ({ auth, body }) =>
  created(await createTurn(auth, body)),
);
