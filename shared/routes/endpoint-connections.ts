import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { EndpointConnectionTestBody } from '../schemas/endpoint-connection-test.js';
import {
  EndpointConnectionCreate,
  EndpointConnectionListQuery,
  EndpointConnectionUpdate,
} from '../schemas/endpoint-connections.js';
import { Deleted } from '../schemas/answers.js';
import { EndpointConnectionRecord } from '../schemas/endpoint-connections.js';
import { EndpointConnectionTestResultRecord } from '../schemas/endpoint-connection-test.js';

export const endpointConnectionsRoutes = {
  create: route('POST', '/endpointConnections', 'endpoint-connections/create', 'write', {
    body: EndpointConnectionCreate,
    response: EndpointConnectionRecord,
  }),
  list: route('GET', '/endpointConnections', 'endpoint-connections/list', 'read', {
    query: EndpointConnectionListQuery,
    response: Type.Array(EndpointConnectionRecord),
  }),
  get: route('GET', '/endpointConnections/{id}', 'endpoint-connections/get', 'read', {
    params: IdParams,
    response: EndpointConnectionRecord,
  }),
  update: route('PATCH', '/endpointConnections/{id}', 'endpoint-connections/update', 'write', {
    params: IdParams,
    body: EndpointConnectionUpdate,
    response: EndpointConnectionRecord,
  }),
  delete: route('DELETE', '/endpointConnections/{id}', 'endpoint-connections/delete', 'write', {
    params: IdParams,
    response: Deleted,
  }),
  test: route('POST', '/endpointConnections/{id}/test', 'endpoint-connections/test', 'write', {
    params: IdParams,
    body: EndpointConnectionTestBody,
    response: EndpointConnectionTestResultRecord,
  }),
};
