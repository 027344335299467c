import { created, httpHandler } from '../../shared/http/handler.js';
import { ApiKeyCreate } from '../../shared/schemas/organization.js';
import { createApiKey } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler({ handler: 'api-keys/create', body: ApiKeyCreate }, async ({ auth, body }) =>
  created(await createApiKey(auth, body.name)),
);
