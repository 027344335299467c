import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { PhoneConnectionUpdate } from '../../shared/schemas/phone-connections.js';
import { updatePhoneConnection } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(
  { handler: 'phone-connections/update', params: IdParams, body: PhoneConnectionUpdate },
  async ({ auth, params, body }) => ok(await updatePhoneConnection(auth, params.id, body)),
);
