import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { ApiKeyCreate, ApiKeyListQuery } from '../schemas/organization.js';
import { ApiKeyRecord, CreatedApiKeyRecord, RevokedApiKey } from '../schemas/organization.js';

export const apiKeysRoutes = {
  create: route('POST', '/apiKeys', 'api-keys/create', 'write', { body: ApiKeyCreate, response: CreatedApiKeyRecord }),
  list: route('GET', '/apiKeys', 'api-keys/list', 'read', {
    query: ApiKeyListQuery,
    response: Type.Array(ApiKeyRecord),
  }),
  get: route('GET', '/apiKeys/{id}', 'api-keys/get', 'read', { params: IdParams, response: ApiKeyRecord }),
  delete: route('DELETE', '/apiKeys/{id}', 'api-keys/delete', 'write', { params: IdParams, response: RevokedApiKey }),
};
