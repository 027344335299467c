import { evaluationsRoutes } from '../../shared/routes/evaluations.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createEvaluations } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(evaluationsRoutes.create, async ({ auth, body }) =>
  created(await createEvaluations(auth, body)),
);
