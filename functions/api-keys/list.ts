import { apiKeysRoutes } from '../../shared/routes/api-keys.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listApiKeys } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler(apiKeysRoutes.list, async ({ auth, query }) => page(await listApiKeys(auth, query)));
