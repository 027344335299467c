import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { EvaluationCreate, EvaluationListQuery, EvaluationRecord, EvaluationUpdate } from '../schemas/sessions.js';

export const evaluationsRoutes = {
  create: route('POST', '/evaluations', 'evaluations/create', 'write', {
    capabilities: ['bucketRead', 'queueSend'],
    body: EvaluationCreate,
    response: Type.Array(EvaluationRecord),
  }),
  list: route('GET', '/evaluations', 'evaluations/list', 'read', {
    query: EvaluationListQuery,
    response: Type.Array(EvaluationRecord),
  }),
  get: route('GET', '/evaluations/{id}', 'evaluations/get', 'read', { params: IdParams, response: EvaluationRecord }),
  update: route('PATCH', '/evaluations/{id}', 'evaluations/update', 'write', {
    params: IdParams,
    body: EvaluationUpdate,
    response: EvaluationRecord,
  }),
  retry: route('POST', '/evaluations/{id}/retry', 'evaluations/retry', 'write', {
    capabilities: ['queueSend'],
    params: IdParams,
    response: EvaluationRecord,
  }),
};
