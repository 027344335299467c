import { inferenceResultsRoutes } from '../../shared/routes/inference-results.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listTurnsOf } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(inferenceResultsRoutes.list, async ({ auth, query }) =>
  page(await listTurnsOf(auth, query)),
);
