import { phoneConnectionsRoutes } from '../../shared/routes/phone-connections.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listPhoneConnections } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(phoneConnectionsRoutes.list, async ({ auth, query }) =>
  page(await listPhoneConnections(auth, query)),
);
