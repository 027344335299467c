import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { TurnRecord } from '../schemas/sessions.js';
import { TurnBatch, TurnCreate, TurnListQuery, TurnUpdate } from '../schemas/sessions.js';

export const inferenceResultsRoutes = {
  create: route('POST', '/inferenceResults', 'inference-results/create', 'write', {
    body: TurnCreate,
    response: TurnRecord,
  }),
  batch: route('POST', '/inferenceResults/batch', 'inference-results/batch', 'write', {
    body: TurnBatch,
    response: Type.Array(TurnRecord),
  }),
  list: route('GET', '/inferenceResults', 'inference-results/list', 'read', {
    query: TurnListQuery,
    response: Type.Array(TurnRecord),
  }),
  get: route('GET', '/inferenceResults/{id}', 'inference-results/get', 'read', {
    params: IdParams,
    response: TurnRecord,
  }),
  update: route('PATCH', '/inferenceResults/{id}', 'inference-results/update', 'write', {
    params: IdParams,
    body: TurnUpdate,
    response: TurnRecord,
  }),
};
