import { inferenceResultsRoutes } from '../../shared/routes/inference-results.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getTurn } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(inferenceResultsRoutes.get, async ({ auth, params }) =>
  ok(await getTurn(auth, params.id)),
);
