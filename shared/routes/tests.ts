import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { Deleted } from '../schemas/answers.js';
import { TestRecordSchema } from '../schemas/tests.js';
import { TestCreate, TestGenerateMore, TestListQuery, TestUpdate } from '../schemas/tests.js';

export const testsRoutes = {
  create: route('POST', '/tests', 'tests/create', 'write', {
    capabilities: ['bucketRead', 'generationQueueSend'],
    body: TestCreate,
    response: TestRecordSchema,
  }),
  list: route('GET', '/tests', 'tests/list', 'read', { query: TestListQuery, response: Type.Array(TestRecordSchema) }),
  get: route('GET', '/tests/{id}', 'tests/get', 'read', { params: IdParams, response: TestRecordSchema }),
  update: route('PATCH', '/tests/{id}', 'tests/update', 'write', {
    params: IdParams,
    body: TestUpdate,
    response: TestRecordSchema,
  }),
  delete: route('DELETE', '/tests/{id}', 'tests/delete', 'write', { params: IdParams, response: Deleted }),
  extend: route('POST', '/tests/{id}/extend', 'tests/extend', 'write', {
    capabilities: ['generationQueueSend'],
    params: IdParams,
    body: TestGenerateMore,
    bodyOptional: true,
    response: TestRecordSchema,
  }),
  augment: route('POST', '/tests/{id}/augment', 'tests/augment', 'write', {
    capabilities: ['generationQueueSend'],
    params: IdParams,
    body: TestGenerateMore,
    bodyOptional: true,
    response: TestRecordSchema,
  }),
  cancel: route('POST', '/tests/{id}/cancel', 'tests/cancel', 'write', {
    params: IdParams,
    response: TestRecordSchema,
  }),
};
