import { httpHandler, page } from '../../shared/http/handler.js';
import { EndpointConnectionListQuery } from '../../shared/schemas/endpoint-connections.js';
import { listEndpointConnections } from '../../shared/domain/catalog/endpoint-connection-reads.js';

export const handler = httpHandler(
  { handler: 'endpoint-connections/list', query: EndpointConnectionListQuery },
  async ({ auth, query }) => page(await listEndpointConnections(auth, query)),
);
