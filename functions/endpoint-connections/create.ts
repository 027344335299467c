import { endpointConnectionsRoutes } from '../../shared/routes/endpoint-connections.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createEndpointConnection } from '../../shared/domain/catalog/endpoint-connections.js';

export const handler = httpHandler(endpointConnectionsRoutes.create, async ({ auth, body }) =>
  created(await createEndpointConnection(auth, body)),
);
