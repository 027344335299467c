import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getApiKey } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler({ handler: 'api-keys/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getApiKey(auth, params.id)),
);
