import type { Static } from '@sinclair/typebox';
import type { Reply } from '../http/handler.js';
import type { ErrorBody } from '../schemas/answers.js';

/**
 * GET and DELETE /mcp: 405 with `Allow: POST`, as the SDK's stateless server examples answer them.
 * This server opens no SSE stream (GET) and keeps no session to end (DELETE); an MCP client reads
 * the 405 as "POST only" and ignores the body, which is the service's usual error body. A module of
 * its own, so those two functions carry none of the SDK.
 */
export function methodNotAllowed(): Reply<Static<typeof ErrorBody>> {
  return {
    statusCode: 405,
    headers: { Allow: 'POST' },
    body: {
      error: 'Method Not Allowed',
      message:
        'this MCP server is stateless: it opens no SSE stream and keeps no session; send JSON-RPC messages with POST',
    },
  };
}
