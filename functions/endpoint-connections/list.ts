import { endpointConnectionsRoutes } from '../../shared/routes/endpoint-connections.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listEndpointConnections } from '../../shared/domain/catalog/endpoint-connection-reads.js';

export const handler = httpHandler(endpointConnectionsRoutes.list, async ({ auth, query }) =>
  page(await listEndpointConnections(auth, query)),
);
