import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getEndpointConnection } from '../../shared/domain/catalog/endpoint-connection-reads.js';

export const handler = httpHandler(
  { handler: 'endpoint-connections/get', params: IdParams },
  async ({ auth, params }) => ok(await getEndpointConnection(auth, params.id)),
);
