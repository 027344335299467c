import { endpointConnectionsRoutes } from '../../shared/routes/endpoint-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getEndpointConnection } from '../../shared/domain/catalog/endpoint-connection-reads.js';

export const handler = httpHandler(endpointConnectionsRoutes.get, async ({ auth, params }) =>
  ok(await getEndpointConnection(auth, params.id)),
);
