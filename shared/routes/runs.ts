import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import {
  ComparisonCase,
  ComparisonCasesQuery,
  ComparisonQuery,
  JunitDocument,
  JunitQuery,
  Run,
  RunComparison,
  RunCreate,
  RunListQuery,
} from '../schemas/runs.js';

export const runsRoutes = {
  create: route('POST', '/runs', 'runs/create', 'write', {
    capabilities: ['runQueueSend'],
    body: RunCreate,
    response: Run,
  }),
  list: route('GET', '/runs', 'runs/list', 'read', { query: RunListQuery, response: Type.Array(Run) }),
  get: route('GET', '/runs/{id}', 'runs/get', 'read', { params: IdParams, response: Run }),
  cancel: route('POST', '/runs/{id}/cancel', 'runs/cancel', 'write', {
    capabilities: ['runQueueSend'],
    params: IdParams,
    response: Run,
  }),
  comparison: route('GET', '/runs/{id}/comparison', 'runs/comparison', 'read', {
    params: IdParams,
    query: ComparisonQuery,
    response: RunComparison,
  }),
  comparisonCases: route('GET', '/runs/{id}/comparison/cases', 'runs/comparison-cases', 'read', {
    capabilities: ['bucketRead'],
    params: IdParams,
    query: ComparisonCasesQuery,
    response: Type.Array(ComparisonCase),
  }),
  junit: route('GET', '/runs/{id}/junit', 'runs/junit', 'read', {
    capabilities: ['bucketRead'],
    params: IdParams,
    query: JunitQuery,
    response: JunitDocument,
    responseMediaTypes: ['application/xml'],
  }),
};
