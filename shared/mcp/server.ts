/**
 * POST /mcp: the Model Context Protocol's Streamable HTTP transport, stateless with JSON answers,
 * on the official SDK. Each request gets its own server and transport (a stateless transport
 * serves one request), acting for the caller's organization; the API Gateway event's body and
 * headers become a web-standard Request, the SDK's Response the Lambda's answer.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { AuthContext } from '../auth/context.js';
import type { RawBody, Reply } from '../http/handler.js';
import { REASON_PHRASES } from '../http/errors.js';
import { registerTools } from './tools.js';

export const MCP_SERVER_INFO = { name: 'eval-platform', version: '1.0.0' } as const;

const INSTRUCTIONS =
  'Evaluation platform for AI agents. Typical flow: list_runs to find runs, start_run (version, test, metrics), ' +
  'get_run until COMPLETED, compare_runs against a base run for verdicts, failing_cases for what broke and why. ' +
  'monitor_status for production; next_review_item / label_review_item for human review.';

/**
 * The SDK checks JSON Schemas only for elicitation, which this server never asks for: this stands
 * in for its default (ajv, built per server), which would cost every request.
 */
const noSchemaChecks: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'this server checks no JSON Schema',
  }),
};

/**
 * A server with every tool, for one request of `auth`'s organization: the SDK's protocol server,
 * which answers the handshake and pings and routes `tools/list` and `tools/call` to the tools.
 */
export function mcpServer(auth: AuthContext): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: noSchemaChecks,
  });
  registerTools(server, auth);
  return server;
}

/** One MCP request (a POST body: a JSON-RPC message or batch) answered for `auth`. */
export async function answerMcp(auth: AuthContext, body: RawBody): Promise<Reply> {
  const server = mcpServer(auth);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const requestHeaders = new Headers();
    for (const [name, value] of Object.entries(body.headers)) if (value !== undefined) requestHeaders.set(name, value);
    const request = new Request('https://mcp.invalid/mcp', {
      method: 'POST',
      headers: requestHeaders,
      body: new Uint8Array(body.bytes),
    });
    const response = await transport.handleRequest(request);
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-type') headers[name] = value;
    });
    const contentType = response.headers.get('content-type');
    // JSON goes out as the other routes' JSON; a body-less 202 (notifications only) as no bytes.
    if (text && contentType?.startsWith('application/json')) {
      const answer = JSON.parse(text) as { error?: { message?: unknown } };
      // The transport's own refusals (406, 415, a body that is not JSON-RPC) say what every route's
      // errors say, `{error, message}`: MCP clients read only the status and the text of a failed POST.
      if (response.status >= 400)
        return {
          statusCode: response.status,
          body: { error: REASON_PHRASES[response.status] ?? 'Error', message: String(answer.error?.message ?? '') },
          headers,
        };
      return { statusCode: response.status, body: answer, headers };
    }
    return {
      statusCode: response.status,
      body: undefined,
      headers,
      raw: { contentType: contentType ?? 'application/json', bytes: Buffer.from(text, 'utf8') },
    };
  } finally {
    await server.close();
  }
}
