import { route } from './route.js';
import { JsonRpcMessage, JsonRpcResponse } from '../schemas/mcp.js';
import { ErrorBody } from '../schemas/answers.js';

/**
 * The Model Context Protocol over Streamable HTTP, stateless with JSON answers; its tools call the
 * use cases of the other routes (runs, comparisons, monitors, review), hence their grants. GET and
 * DELETE answer 405: there is no SSE stream to open and no session to end.
 */
export const mcpRoutes = {
  server: route('POST', '/mcp', 'mcp/server', 'write', {
    capabilities: ['bucketRead', 'runQueueSend', 'tableSelect'],
    rawBody: { mediaTypes: ['application/json'], schema: JsonRpcMessage },
    response: JsonRpcResponse,
  }),
  get: route('GET', '/mcp', 'mcp/get', 'read', { response: ErrorBody }),
  delete: route('DELETE', '/mcp', 'mcp/delete', 'read', { response: ErrorBody }),
};
