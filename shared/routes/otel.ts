import { route } from './route.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse, PROTOBUF } from '../schemas/telemetry.js';

export const otelRoutes = {
  exportTraces: route('POST', '/otel/v1/traces', 'otel/export-traces', 'write', {
    capabilities: ['bucketWrite'],
    rawBody: { mediaTypes: [PROTOBUF, 'application/json'], schema: ExportTraceServiceRequest },
    response: ExportTraceServiceResponse,
  }),
};
