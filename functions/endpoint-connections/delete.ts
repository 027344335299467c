import { endpointConnectionsRoutes } from '../../shared/routes/endpoint-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteEndpointConnection } from '../../shared/domain/catalog/endpoint-connection-reads.js';

export const handler = httpHandler(endpointConnectionsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteEndpointConnection(auth, params.id)),
);
