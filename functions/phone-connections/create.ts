import { phoneConnectionsRoutes } from '../../shared/routes/phone-connections.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createPhoneConnection } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(phoneConnectionsRoutes.create, async ({ auth, body }) =>
  created(await createPhoneConnection(auth, body)),
);
