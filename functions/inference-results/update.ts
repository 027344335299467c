import { inferenceResultsRoutes } from '../../shared/routes/inference-results.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateTurn } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(inferenceResultsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateTurn(auth, params.id, body)),
);
