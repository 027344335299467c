import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteEndpointConnection } from '../../shared/domain/catalog/endpoint-connection-reads.js';

export const handler = httpHandler(
  { handler: 'endpoint-connections/delete', params: IdParams },
  async ({ auth, params }) => ok(await deleteEndpointConnection(auth, params.id)),
);
