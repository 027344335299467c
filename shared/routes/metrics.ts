import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { MetricCreate, MetricListQuery, MetricUpdate } from '../schemas/metrics.js';
import { Deleted } from '../schemas/answers.js';
import { MetricRecord } from '../schemas/metrics.js';
import { Agreement, AgreementQuery } from '../schemas/review.js';

export const metricsRoutes = {
  create: route('POST', '/metrics', 'metrics/create', 'write', { body: MetricCreate, response: MetricRecord }),
  list: route('GET', '/metrics', 'metrics/list', 'read', {
    query: MetricListQuery,
    response: Type.Array(MetricRecord),
  }),
  get: route('GET', '/metrics/{id}', 'metrics/get', 'read', { params: IdParams, response: MetricRecord }),
  update: route('PATCH', '/metrics/{id}', 'metrics/update', 'write', {
    params: IdParams,
    body: MetricUpdate,
    response: MetricRecord,
  }),
  delete: route('DELETE', '/metrics/{id}', 'metrics/delete', 'write', { params: IdParams, response: Deleted }),
  agreement: route('GET', '/metrics/{id}/agreement', 'metrics/agreement', 'read', {
    params: IdParams,
    query: AgreementQuery,
    response: Agreement,
  }),
};
