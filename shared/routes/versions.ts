import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { VersionCreate, VersionListQuery, VersionUpdate } from '../schemas/products.js';
import { Deleted } from '../schemas/answers.js';
import { VersionRecord } from '../schemas/products.js';

export const versionsRoutes = {
  create: route('POST', '/versions', 'versions/create', 'write', { body: VersionCreate, response: VersionRecord }),
  list: route('GET', '/versions', 'versions/list', 'read', {
    query: VersionListQuery,
    response: Type.Array(VersionRecord),
  }),
  get: route('GET', '/versions/{id}', 'versions/get', 'read', { params: IdParams, response: VersionRecord }),
  update: route('PATCH', '/versions/{id}', 'versions/update', 'write', {
    params: IdParams,
    body: VersionUpdate,
    response: VersionRecord,
  }),
  delete: route('DELETE', '/versions/{id}', 'versions/delete', 'write', { params: IdParams, response: Deleted }),
};
