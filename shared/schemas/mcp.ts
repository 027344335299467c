/**
 * POST /mcp's bodies as the OpenAPI document shows them: JSON-RPC 2.0 messages of the Model Context
 * Protocol (documentation only: the SDK's transport parses and checks them, shared/mcp/server.ts).
 */
import * as Type from '@sinclair/typebox';

const RequestId = Type.Union([Type.String(), Type.Integer()]);

export const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(RequestId),
    method: Type.Optional(
      Type.String({ description: 'initialize, notifications/initialized, tools/list, tools/call, ping, …' }),
    ),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true, description: 'a JSON-RPC 2.0 request or notification (or an array of them)' },
);

export const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([RequestId, Type.Null()]),
    result: Type.Optional(Type.Object({}, { additionalProperties: true })),
    error: Type.Optional(
      Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
    ),
  },
  { additionalProperties: true, description: 'a JSON-RPC 2.0 response: `result` or `error`' },
);
