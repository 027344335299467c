import { endpointConnectionsRoutes } from '../../shared/routes/endpoint-connections.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { testEndpointConnection } from '../../shared/domain/runs/caller/test-call.js';

export const handler = httpHandler(endpointConnectionsRoutes.test, async ({ auth, params, body }) =>
  ok(await testEndpointConnection(auth, params.id, body)),
);
