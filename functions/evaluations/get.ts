import { evaluationsRoutes } from '../../shared/routes/evaluations.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getEvaluation } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(evaluationsRoutes.get, async ({ auth, params }) =>
  ok(await getEvaluation(auth, params.id)),
);
