import { bytes, httpHandler, ok, type RawBody } from '../../shared/http/handler.js';
import { exportTraces, otlpErrorReply, PROTOBUF } from '../../shared/domain/telemetry/export.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse } from '../../shared/schemas/telemetry.js';

export const handler = httpHandler(
  {
    handler: 'otel/export-traces',
    rawBody: {
      mediaTypes: [PROTOBUF, 'application/json'],
      schema: ExportTraceServiceRequest,
      errorReply: otlpErrorReply,
    },
    response: ExportTraceServiceResponse,
  },
  async ({ auth, body }) => {
    const answer = await exportTraces(auth, body as RawBody);
    return answer.format === 'protobuf' ? bytes(PROTOBUF, answer.bytes) : ok(answer.json);
  },
);
