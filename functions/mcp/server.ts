import { httpHandler, type RawBody } from '../../shared/http/handler.js';
import { answerMcp } from '../../shared/mcp/server.js';
import { JsonRpcMessage, JsonRpcResponse } from '../../shared/schemas/mcp.js';

export const handler = httpHandler(
  {
    handler: 'mcp/server',
    rawBody: { mediaTypes: ['application/json'], schema: JsonRpcMessage },
    response: JsonRpcResponse,
  },
  async ({ auth, body }) => answerMcp(auth, body as RawBody),
);
