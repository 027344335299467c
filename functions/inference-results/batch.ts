import { inferenceResultsRoutes } from '../../shared/routes/inference-results.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createTurns } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(inferenceResultsRoutes.batch, async ({ auth, body }) =>
  created(await createTurns(auth, body)),
);
