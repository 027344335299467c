import { endpointConnectionsRoutes } from '../../shared/routes/endpoint-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateEndpointConnection } from '../../shared/domain/catalog/endpoint-connections.js';

export const handler = httpHandler(endpointConnectionsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateEndpointConnection(auth, params.id, body)),
);
