import { created, httpHandler } from '../../shared/http/handler.js';
import { PhoneConnectionCreate } from '../../shared/schemas/phone-connections.js';
import { createPhoneConnection } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(
  { handler: 'phone-connections/create', body: PhoneConnectionCreate },
  async ({ auth, body }) => created(await createPhoneConnection(auth, body)),
);
