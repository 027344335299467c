import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { Deleted } from '../schemas/answers.js';
import { MetricLinks, SpecificationRecord } from '../schemas/specifications.js';
import { MetricRecord } from '../schemas/metrics.js';
import {
  MetricLinkBody,
  SpecificationCreate,
  SpecificationListQuery,
  SpecificationUpdate,
} from '../schemas/specifications.js';

export const specificationsRoutes = {
  create: route('POST', '/specifications', 'specifications/create', 'write', {
    body: SpecificationCreate,
    response: SpecificationRecord,
  }),
  list: route('GET', '/specifications', 'specifications/list', 'read', {
    query: SpecificationListQuery,
    response: Type.Array(SpecificationRecord),
  }),
  get: route('GET', '/specifications/{id}', 'specifications/get', 'read', {
    params: IdParams,
    response: SpecificationRecord,
  }),
  update: route('PATCH', '/specifications/{id}', 'specifications/update', 'write', {
    params: IdParams,
    body: SpecificationUpdate,
    response: SpecificationRecord,
  }),
  delete: route('DELETE', '/specifications/{id}', 'specifications/delete', 'write', {
    params: IdParams,
    response: Deleted,
  }),
  linkMetrics: route('POST', '/specifications/{id}/metrics', 'specifications/link-metrics', 'write', {
    params: IdParams,
    body: MetricLinkBody,
    response: MetricLinks,
  }),
  unlinkMetrics: route('DELETE', '/specifications/{id}/metrics', 'specifications/unlink-metrics', 'write', {
    params: IdParams,
    body: MetricLinkBody,
    response: MetricLinks,
  }),
  listMetrics: route('GET', '/specifications/{id}/metrics', 'specifications/list-metrics', 'read', {
    params: IdParams,
    response: Type.Array(MetricRecord),
  }),
};
