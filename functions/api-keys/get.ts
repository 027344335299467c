import { apiKeysRoutes } from '../../shared/routes/api-keys.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getApiKey } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler(apiKeysRoutes.get, async ({ auth, params }) => ok(await getApiKey(auth, params.id)));
