import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getPhoneConnection } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler({ handler: 'phone-connections/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getPhoneConnection(auth, params.id)),
);
