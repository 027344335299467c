import { phoneConnectionsRoutes } from '../../shared/routes/phone-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getPhoneConnection } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(phoneConnectionsRoutes.get, async ({ auth, params }) =>
  ok(await getPhoneConnection(auth, params.id)),
);
