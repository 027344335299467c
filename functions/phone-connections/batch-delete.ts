import { phoneConnectionsRoutes } from '../../shared/routes/phone-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deletePhoneConnections } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(phoneConnectionsRoutes.batchDelete, async ({ auth, body }) =>
  ok(await deletePhoneConnections(auth, body)),
);
