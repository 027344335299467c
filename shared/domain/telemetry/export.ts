import type { AuthContext } from '../../auth/context.js';
import type { ErrorBody } from '../../http/errors.js';
import type { RawBody } from '../../http/handler.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import { PROTOBUF } from '../../schemas/telemetry.js';
import { ingestSpans } from './ingest.js';
import {
  decodedBody,
  decodeExportRequest,
  encodeExportResponse,
  encodeStatus,
  formatOf,
  type OtlpFormat,
} from './otlp.js';

export { PROTOBUF };

export type ExportAnswer =
  | { format: 'protobuf'; bytes: Buffer }
  | { format: 'json'; json: { partialSuccess?: { rejectedSpans: number; errorMessage: string } } };

/**
 * POST /otel/v1/traces: decodes an OTLP/HTTP ExportTraceServiceRequest (415 another type, 413
 * past the limits, 400 undecodable), places its spans, and answers ExportTraceServiceResponse in
 * the request's encoding, with partialSuccess when spans were rejected (or held: a warning).
 */
export async function exportTraces(auth: AuthContext, body: RawBody): Promise<ExportAnswer> {
  const format: OtlpFormat = formatOf(body.contentType);
  const spans = decodeExportRequest(decodedBody(body.bytes, body.contentEncoding), format);
  const result = await ingestSpans(auth, spans);
  countMetric(METRIC.OtlpSpansAccepted, result.acceptedSpans);
  countMetric(METRIC.OtlpSpansRejected, result.rejectedSpans);
  const partial =
    result.rejectedSpans > 0 || result.errorMessage
      ? { rejectedSpans: result.rejectedSpans, errorMessage: result.errorMessage }
      : undefined;
  if (format === 'protobuf') return { format, bytes: encodeExportResponse(format, partial) };
  return { format, json: partial ? { partialSuccess: partial } : {} };
}

/** OTLP/HTTP failures of a protobuf request carry a protobuf google.rpc.Status; JSON ones keep `{error, message}` (a JSON Status with its message). */
export function otlpErrorReply(
  headers: Record<string, string | undefined>,
  statusCode: number,
  body: ErrorBody,
): { contentType: string; bytes: Buffer } | undefined {
  const media = (headers['content-type'] ?? headers['Content-Type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return media === PROTOBUF ? { contentType: PROTOBUF, bytes: encodeStatus(statusCode, body.message) } : undefined;
}
