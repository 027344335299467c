import { evaluationsRoutes } from '../../shared/routes/evaluations.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { scoreByHuman } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(evaluationsRoutes.update, async ({ auth, params, body }) =>
  ok(await scoreByHuman(auth, params.id, body)),
);
