import { otelRoutes } from '../../shared/routes/otel.js';
import { bytes, httpHandler, ok, type RawBody } from '../../shared/http/handler.js';
import { exportTraces, otlpErrorReply, PROTOBUF } from '../../shared/domain/telemetry/export.js';

export const handler = httpHandler(
  otelRoutes.exportTraces,
  async ({ auth, body }) => {
    const answer = await exportTraces(auth, body as RawBody);
    return answer.format === 'protobuf' ? bytes(PROTOBUF, answer.bytes) : ok(answer.json);
  },
  { errorReply: otlpErrorReply },
);
