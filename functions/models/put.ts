import { created, httpHandler, ok } from '../../shared/http/handler.js';
import { ModelParams, ModelPut } from '../../shared/schemas/metrics.js';
import { upsertEvaluatorModel } from '../../shared/domain/metrics/models.js';

export const handler = httpHandler(
  { handler: 'models/put', params: ModelParams, body: ModelPut },
  async ({ params, body }) => {
    const { model, created: isNew } = await upsertEvaluatorModel(params.name, body);
    return isNew ? created(model) : ok(model);
  },
);
