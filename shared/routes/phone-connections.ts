import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import {
  BatchIds,
  PhoneConnection,
  PhoneConnectionCreate,
  PhoneConnectionListQuery,
  PhoneConnectionUpdate,
} from '../schemas/phone-connections.js';
import { BatchDeleted } from '../schemas/answers.js';

export const phoneConnectionsRoutes = {
  create: route('POST', '/phoneConnections', 'phone-connections/create', 'write', {
    body: PhoneConnectionCreate,
    response: PhoneConnection,
  }),
  list: route('GET', '/phoneConnections', 'phone-connections/list', 'read', {
    query: PhoneConnectionListQuery,
    response: Type.Array(PhoneConnection),
  }),
  batchDelete: route('DELETE', '/phoneConnections/batch', 'phone-connections/batch-delete', 'write', {
    body: BatchIds,
    response: BatchDeleted,
  }),
  get: route('GET', '/phoneConnections/{id}', 'phone-connections/get', 'read', {
    params: IdParams,
    response: PhoneConnection,
  }),
  update: route('PATCH', '/phoneConnections/{id}', 'phone-connections/update', 'write', {
    params: IdParams,
    body: PhoneConnectionUpdate,
    response: PhoneConnection,
  }),
};
