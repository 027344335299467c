import { gzipSync } from 'node:zlib';
import { trace, context, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

/**
 * Spans made by the real OpenTelemetry JS SDK (TracerProvider + an in-memory exporter) and their
 * OTLP bodies as the SDK's own serializers write them: what an exporter would send.
 */
export function sdkTracer(resource: Attributes): {
  tracer: Tracer;
  spans: () => Promise<ReadableSpan[]>;
  reset: () => void;
} {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return {
    tracer: provider.getTracer('eval-platform-tests', '1.0.0'),
    // The processor exports asynchronously: flush before reading.
    spans: async () => {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
    reset: () => exporter.reset(),
  };
}

export interface TurnSpec {
  session: string;
  input: string;
  output: string;
  tool?: { name: string; result: string };
  usage?: { input: number; output: number };
}

/**
 * One turn shaped like the GenAI semantic conventions: an `invoke_agent` root carrying the
 * session, the messages and the usage, a `chat` child and, optionally, an `execute_tool` child.
 * Start and end times are explicit, so durations are exact.
 */
export function genAiTurn(tracer: Tracer, spec: TurnSpec, startMs: number, extra: Attributes = {}): void {
  const t = (ms: number) => new Date(startMs + ms);
  const root = tracer.startSpan(
    'invoke_agent support-bot',
    {
      startTime: t(0),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'session.id': spec.session,
        'gen_ai.input.messages': JSON.stringify([
          { role: 'system', parts: [{ type: 'text', content: 'You are a support bot.' }] },
          { role: 'user', parts: [{ type: 'text', content: spec.input }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: spec.output }], finish_reason: 'stop' },
        ]),
        ...(spec.usage
          ? { 'gen_ai.usage.input_tokens': spec.usage.input, 'gen_ai.usage.output_tokens': spec.usage.output }
          : {}),
        ...extra,
      },
    },
    context.active(),
  );
  const ctx = trace.setSpan(context.active(), root);
  const chat = tracer.startSpan(
    'chat gpt-4.1-mini',
    { startTime: t(10), attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1-mini' } },
    ctx,
  );
  chat.end(t(400));
  if (spec.tool) {
    const tool = tracer.startSpan(
      `execute_tool ${spec.tool.name}`,
      {
        startTime: t(410),
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': spec.tool.name,
          'gen_ai.tool.call.result': spec.tool.result,
        },
      },
      ctx,
    );
    tool.end(t(600));
  }
  root.setStatus({ code: SpanStatusCode.OK });
  root.end(t(1000));
}

export function protobufBody(spans: ReadableSpan[], gzip = false): Buffer {
  const bytes = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
  return gzip ? gzipSync(bytes) : bytes;
}

export function jsonBody(spans: ReadableSpan[], gzip = false): Buffer {
  const bytes = Buffer.from(JsonTraceSerializer.serializeRequest(spans)!);
  return gzip ? gzipSync(bytes) : bytes;
}

/** An OTLP JSON key/value list from a plain object (strings, booleans, integers, doubles). */
export function kv(
  attributes: Record<string, string | number | boolean>,
): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(attributes).map(([key, v]) => ({
    key,
    value:
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : Number.isInteger(v)
            ? { intValue: String(v) }
            : { doubleValue: v },
  }));
}

/** A hand-written OTLP JSON span (hex ids, integer enums, int64 as strings), as other SDKs send them. */
export function jsonSpan(s: {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  error?: string;
}): Record<string, unknown> {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
    name: s.name,
    kind: 1,
    startTimeUnixNano: `${BigInt(s.startMs) * 1_000_000n}`,
    endTimeUnixNano: `${BigInt(s.endMs) * 1_000_000n}`,
    attributes: kv(s.attributes),
    status: s.error ? { code: 2, message: s.error } : { code: 0 },
  };
}

export function jsonRequest(
  resource: Record<string, string | number | boolean>,
  spans: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    resourceSpans: [{ resource: { attributes: kv(resource) }, scopeSpans: [{ scope: { name: 'test' }, spans }] }],
  };
}
