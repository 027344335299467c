import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { EndpointConnectionTestBody } from '../../shared/schemas/endpoint-connection-test.js';
import { testEndpointConnection } from '../../shared/domain/runs/caller/test-call.js';

export const handler = httpHandler(
  { handler: 'endpoint-connections/test', params: IdParams, body: EndpointConnectionTestBody },
  async ({ auth, params, body }) => ok(await testEndpointConnection(auth, params.id, body)),
);
