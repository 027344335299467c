import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { ModelParams, ModelPut } from '../schemas/metrics.js';
import { EvaluatorModelRecord } from '../schemas/metrics.js';

export const modelsRoutes = {
  list: route('GET', '/models', 'models/list', 'read', { response: Type.Array(EvaluatorModelRecord) }),
  put: route('PUT', '/models/{name}', 'models/put', 'write', {
    access: 'admin',
    params: ModelParams,
    body: ModelPut,
    response: EvaluatorModelRecord,
  }),
};
