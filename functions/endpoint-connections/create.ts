import { created, httpHandler } from '../../shared/http/handler.js';
import { EndpointConnectionCreate } from '../../shared/schemas/endpoint-connections.js';
import { createEndpointConnection } from '../../shared/domain/catalog/endpoint-connections.js';

export const handler = httpHandler(
  { handler: 'endpoint-connections/create', body: EndpointConnectionCreate },
  async ({ auth, body }) => created(await createEndpointConnection(auth, body)),
);
