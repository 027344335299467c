import { evaluationsRoutes } from '../../shared/routes/evaluations.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listEvaluationsOf } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(evaluationsRoutes.list, async ({ auth, query }) =>
  page(await listEvaluationsOf(auth, query)),
);
