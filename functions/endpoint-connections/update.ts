import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { EndpointConnectionUpdate } from '../../shared/schemas/endpoint-connections.js';
import { updateEndpointConnection } from '../../shared/domain/catalog/endpoint-connections.js';

export const handler = httpHandler(
  { handler: 'endpoint-connections/update', params: IdParams, body: EndpointConnectionUpdate },
  async ({ auth, params, body }) => ok(await updateEndpointConnection(auth, params.id, body)),
);
