import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { revokeApiKey } from '../../shared/domain/accounts/api-keys.js';

export const handler = httpHandler({ handler: 'api-keys/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await revokeApiKey(auth, params.id)),
);
