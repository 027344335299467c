import { gunzipSync } from 'node:zlib';
import { otlpMessages } from '#otlp-messages';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../errors.js';

/**
 * OTLP/HTTP trace export: the request body decoded with protobufjs over the official
 * opentelemetry-proto definitions (`proto/`, through `#otlp-messages`: see otlp-messages.ts), in
 * binary protobuf or in OTLP's JSON mapping (hex trace and span ids, integer enums, 64-bit integers
 * as strings or numbers), and the answers encoded in the request's format.
 */

/** Decoded size limit (after gzip) and spans per request. */
export const MAX_DECODED_BYTES = 5 * 1024 * 1024;
export const MAX_SPANS = 1000;

export type OtlpFormat = 'protobuf' | 'json';

const { ExportTraceServiceRequest, ExportTraceServiceResponse, Status } = otlpMessages;

/** An attribute value as stored: JSON (int64 beyond ±(2^53 − 1) kept as its decimal string, bytes as base64). */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

/** One decoded OTel span with what it needs from its resource and scope. */
export interface OtelSpan {
  /** 32 lowercase hex characters. */
  traceId: string;
  /** 16 lowercase hex characters. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** SpanKind (0 unspecified … 5 consumer). */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  resource: Attributes;
  scope: { name: string; version: string };
  /** StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  events: { name: string; timeNs: bigint; attributes: Attributes }[];
}

/** The format named by a Content-Type header; 415 for anything else. */
export function formatOf(contentType: string | undefined): OtlpFormat {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/x-protobuf') return 'protobuf';
  if (media === 'application/json') return 'json';
  throw new UnsupportedMediaTypeError(
    'Content-Type must be application/x-protobuf or application/json (an OTLP/HTTP ExportTraceServiceRequest)',
  );
}

/** The body as sent, unzipped when Content-Encoding says gzip; 413 past MAX_DECODED_BYTES, 400 for a broken gzip stream. */
export function decodedBody(bytes: Buffer, contentEncoding: string | undefined): Buffer {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  let body: Buffer;
  if (encoding === 'gzip') {
    try {
      body = gunzipSync(bytes, { maxOutputLength: MAX_DECODED_BYTES + 1 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
        throw tooLarge();
      throw new ValidationError('the request body is not a valid gzip stream (Content-Encoding: gzip)');
    }
  } else if (encoding === 'identity' || encoding === '') {
    body = bytes;
  } else {
    throw new UnsupportedMediaTypeError(`Content-Encoding must be gzip or identity, not ${encoding}`);
  }
  if (body.length > MAX_DECODED_BYTES) throw tooLarge();
  return body;
}

function tooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError(`the decoded request body must be at most ${MAX_DECODED_BYTES} bytes (5 MiB)`);
}

/** Decodes an ExportTraceServiceRequest into spans; 400 naming the problem, 413 past MAX_SPANS. */
export function decodeExportRequest(body: Buffer, format: OtlpFormat): OtelSpan[] {
  let message: object;
  if (format === 'protobuf') {
    try {
      message = ExportTraceServiceRequest.decode(body);
    } catch (error) {
      throw new ValidationError(
        `the request body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}`,
      );
    }
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new ValidationError('the request body is not valid JSON');
    }
    if (!isObject(parsed))
      throw new ValidationError('the request body must be a JSON object (an ExportTraceServiceRequest)');
    try {
      message = ExportTraceServiceRequest.fromObject(hexIdsToBase64(parsed));
    } catch (error) {
      throw new ValidationError(`the request body is not an ExportTraceServiceRequest: ${(error as Error).message}`);
    }
  }
  const plain = ExportTraceServiceRequest.toObject(message, {
    longs: String,
    enums: Number,
    bytes: String,
    arrays: true,
    defaults: false,
  }) as unknown as PlainRequest;
  const count = plain.resourceSpans.reduce(
    (n, rs) => n + (rs.scopeSpans ?? []).reduce((m, ss) => m + (ss.spans?.length ?? 0), 0),
    0,
  );
  if (count > MAX_SPANS)
    throw new PayloadTooLargeError(`a request may carry at most ${MAX_SPANS} spans (this one has ${count})`);
  const spans: OtelSpan[] = [];
  plain.resourceSpans.forEach((rs, r) => {
    const resource = attributesOf(rs.resource?.attributes);
    (rs.scopeSpans ?? []).forEach((ss, s) => {
      const scope = { name: ss.scope?.name ?? '', version: ss.scope?.version ?? '' };
      (ss.spans ?? []).forEach((span, i) => {
        const at = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        spans.push({
          traceId: idHex(span.traceId, 16, `${at}.traceId`),
          spanId: idHex(span.spanId, 8, `${at}.spanId`),
          parentSpanId: span.parentSpanId ? idHex(span.parentSpanId, 8, `${at}.parentSpanId`) : null,
          name: wellFormed(span.name ?? ''),
          kind: span.kind ?? 0,
          startNs: nanos(span.startTimeUnixNano),
          endNs: nanos(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          resource,
          scope,
          status: { code: span.status?.code ?? 0, message: wellFormed(span.status?.message ?? '') },
          events: (span.events ?? []).map((e) => ({
            name: e.name ?? '',
            timeNs: nanos(e.timeUnixNano),
            attributes: attributesOf(e.attributes),
          })),
        });
      });
    });
  });
  return spans;
}

/** The ExportTraceServiceResponse: partialSuccess only when spans were rejected (or a warning is due). */
export function encodeExportResponse(
  format: OtlpFormat,
  partial?: { rejectedSpans: number; errorMessage: string },
): Buffer {
  if (format === 'json') return Buffer.from(JSON.stringify(partial ? { partialSuccess: partial } : {}));
  const value = partial
    ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } }
    : {};
  return Buffer.from(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(value)).finish());
}

/** gRPC codes carried in `google.rpc.Status.code` for each HTTP status (OTLP lets clients ignore it). */
const RPC_CODES: Record<number, number> = {
  400: 3,
  401: 16,
  403: 7,
  404: 5,
  409: 10,
  413: 8,
  415: 3,
  429: 8,
  500: 13,
  503: 14,
};

/** A protobuf `google.rpc.Status`: the OTLP/HTTP failure body of a protobuf request. */
export function encodeStatus(httpStatus: number, message: string): Buffer {
  return Buffer.from(Status.encode(Status.fromObject({ code: RPC_CODES[httpStatus] ?? 2, message })).finish());
}

/** Reads a protobuf `google.rpc.Status` (tests and clients). */
export function decodeStatus(bytes: Uint8Array): { code: number; message: string } {
  const status = Status.toObject(Status.decode(bytes), { defaults: true }) as { code: number; message: string };
  return { code: status.code, message: status.message };
}

/** Reads a protobuf ExportTraceServiceResponse (tests and clients). */
export function decodeExportResponse(bytes: Uint8Array): {
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
} {
  const out = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bytes), {
    longs: Number,
    defaults: false,
  }) as {
    partialSuccess?: { rejectedSpans?: number; errorMessage?: string };
  };
  return out.partialSuccess
    ? {
        partialSuccess: {
          rejectedSpans: out.partialSuccess.rejectedSpans ?? 0,
          errorMessage: out.partialSuccess.errorMessage ?? '',
        },
      }
    : {};
}

// ---------- decoding helpers ----------

interface PlainAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: PlainAnyValue[] };
  kvlistValue?: { values?: PlainKeyValue[] };
  bytesValue?: string;
}
interface PlainKeyValue {
  key?: string;
  value?: PlainAnyValue;
}
interface PlainSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: PlainKeyValue[];
  events?: { timeUnixNano?: string; name?: string; attributes?: PlainKeyValue[] }[];
  status?: { message?: string; code?: number };
}
interface PlainRequest {
  resourceSpans: {
    resource?: { attributes?: PlainKeyValue[] };
    scopeSpans?: { scope?: { name?: string; version?: string }; spans?: PlainSpan[] }[];
  }[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** OTLP JSON writes trace and span ids as hex (not base64 as proto3 JSON would): convert them for protobufjs. */
function hexIdsToBase64(value: Record<string, unknown>, path = ''): Record<string, unknown> {
  const walk = (v: unknown, at: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}[${i}]`));
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (ID_FIELDS.has(k) && (at.includes('spans[') || at.includes('links['))) {
        if (x === null || x === undefined || x === '') continue;
        if (typeof x !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(x))
          throw new ValidationError(`${at.replace(/^\./, '')}.${k} must be a hex string`);
        out[k] = Buffer.from(x, 'hex').toString('base64');
      } else {
        out[k] = walk(x, `${at}.${k}`);
      }
    }
    return out;
  };
  return walk(value, path) as Record<string, unknown>;
}

function idHex(base64: string | undefined, bytes: number, at: string): string {
  const hex = Buffer.from(base64 ?? '', 'base64').toString('hex');
  if (hex.length !== bytes * 2) throw new ValidationError(`${at} must be ${bytes} bytes (${bytes * 2} hex characters)`);
  return hex;
}

function nanos(value: string | undefined): bigint {
  try {
    const n = BigInt(value ?? '0');
    return n < 0n ? 0n : n;
  } catch {
    return 0n;
  }
}

/** A lone surrogate (JSON can carry one; DynamoDB cannot store it) becomes U+FFFD. */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

const MAX_DEPTH = 12;
const UNSAFE_KEYS = new Set(['', '__proto__', 'constructor', 'prototype']);

/** Key/value lists as one object; keys DynamoDB or a client could not hold safely are left out. */
export function attributesOf(list: PlainKeyValue[] | undefined, depth = 0): Attributes {
  const out: Attributes = {};
  for (const kv of list ?? []) {
    const key = kv.key === undefined ? undefined : wellFormed(kv.key);
    if (key === undefined || UNSAFE_KEYS.has(key)) continue;
    Object.defineProperty(out, key, {
      value: anyValueOf(kv.value, depth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** What DynamoDB and the API's number rule (±(2^53 − 1)) hold; other doubles are kept as text. */
function storableNumber(n: number): boolean {
  return Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-100);
}

function anyValueOf(v: PlainAnyValue | undefined, depth: number): AttributeValue {
  if (!v) return null;
  if (v.stringValue !== undefined) return wellFormed(v.stringValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : v.intValue;
  }
  if (v.doubleValue !== undefined) return storableNumber(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
  if (v.bytesValue !== undefined) return v.bytesValue;
  if (depth >= MAX_DEPTH) return JSON.stringify(v);
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map((x) => anyValueOf(x, depth + 1));
  if (v.kvlistValue !== undefined) return attributesOf(v.kvlistValue.values, depth + 1);
  return null;
}
