import { httpHandler, page } from '../../shared/http/handler.js';
import { ApiKeyListQuery } from '../../shared/schemas/organization.js';
import { listApiKeys } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler({ handler: 'api-keys/list', query: ApiKeyListQuery }, async ({ auth, query }) =>
  page(await listApiKeys(auth, query)),
);
