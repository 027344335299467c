import { modelsRoutes } from '../../shared/routes/models.js';
import { created, httpHandler, ok } from '../../shared/http/handler.js';
import { upsertEvaluatorModel } from '../../shared/domain/metrics/models.js';

export const handler = httpHandler(modelsRoutes.put, async ({ params, body }) => {
  const { model, created: isNew } = await upsertEvaluatorModel(params.name, body);
  return isNew ? created(model) : ok(model);
});
