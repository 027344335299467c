import { evaluationsRoutes } from '../../shared/routes/evaluations.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { retryEvaluation } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(evaluationsRoutes.retry, async ({ auth, params }) =>
  ok(await retryEvaluation(auth, params.id)),
);
