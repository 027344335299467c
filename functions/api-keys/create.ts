import { apiKeysRoutes } from '../../shared/routes/api-keys.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createApiKey } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler(apiKeysRoutes.create, async ({ auth, body }) =>
  created(await createApiKey(auth, body.name)),
);
