import type { Static } from '@sinclair/typebox';
import { httpHandler, type RawBody, type Reply } from '../../shared/http/handler.js';
import { answerMcp } from '../../shared/mcp/server.js';
import { mcpRoutes } from '../../shared/routes/mcp.js';
import type { JsonRpcResponse } from '../../shared/schemas/mcp.js';

// The SDK's transport writes the answer: a JSON-RPC response, or (4xx) the service's error body.
export const handler = httpHandler(
  mcpRoutes.server,
  async ({ auth, body }) => (await answerMcp(auth, body as RawBody)) as Reply<Static<typeof JsonRpcResponse>>,
);
