import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { Deleted } from '../schemas/answers.js';
import { SpanRecord } from '../schemas/sessions.js';
import { SpanBatch, SpanCreate, SpanIdParams, SpanListQuery } from '../schemas/sessions.js';

export const tracesRoutes = {
  create: route('POST', '/traces', 'traces/create', 'write', {
    capabilities: ['bucketWrite'],
    body: SpanCreate,
    response: SpanRecord,
  }),
  batch: route('POST', '/traces/batch', 'traces/batch', 'write', {
    capabilities: ['bucketWrite'],
    body: SpanBatch,
    response: Type.Array(SpanRecord),
  }),
  list: route('GET', '/traces', 'traces/list', 'read', {
    capabilities: ['bucketRead'],
    query: SpanListQuery,
    response: Type.Array(SpanRecord),
  }),
  get: route('GET', '/traces/{id}', 'traces/get', 'read', {
    capabilities: ['bucketRead'],
    params: SpanIdParams,
    response: SpanRecord,
  }),
  delete: route('DELETE', '/traces/{id}', 'traces/delete', 'write', { params: SpanIdParams, response: Deleted }),
};
