import { phoneConnectionsRoutes } from '../../shared/routes/phone-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updatePhoneConnection } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(phoneConnectionsRoutes.update, async ({ auth, params, body }) =>
  ok(await updatePhoneConnection(auth, params.id, body)),
);
