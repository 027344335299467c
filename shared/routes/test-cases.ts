import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { Deleted } from '../schemas/answers.js';
import { TestCaseRecord } from '../schemas/tests.js';
import { TestCaseCreate, TestCaseListQuery } from '../schemas/tests.js';

export const testCasesRoutes = {
  create: route('POST', '/testCases', 'test-cases/create', 'write', { body: TestCaseCreate, response: TestCaseRecord }),
  list: route('GET', '/testCases', 'test-cases/list', 'read', {
    query: TestCaseListQuery,
    response: Type.Array(TestCaseRecord),
  }),
  get: route('GET', '/testCases/{id}', 'test-cases/get', 'read', { params: IdParams, response: TestCaseRecord }),
  delete: route('DELETE', '/testCases/{id}', 'test-cases/delete', 'write', { params: IdParams, response: Deleted }),
};
