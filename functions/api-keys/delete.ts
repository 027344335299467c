import { apiKeysRoutes } from '../../shared/routes/api-keys.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { revokeApiKey } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler(apiKeysRoutes.delete, async ({ auth, params }) =>
  ok(await revokeApiKey(auth, params.id)),
);
