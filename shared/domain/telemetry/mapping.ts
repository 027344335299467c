import type { SpanType } from '../../schemas/sessions.js';
import type { AttributeValue, Attributes, OtelSpan } from './otlp.js';

/**
 * The pure mapping from OTel spans to sessions, turns and spans. Attributes are
 * read from the span, then from its resource.
 */

export const SESSION_KEYS = ['session.id', 'gen_ai.conversation.id', 'thread_id'] as const;
export const VERSION_KEY = 'platform.version.id';
export const TEST_CASE_KEY = 'platform.test_case.id';

/** An attribute of the span, else of its resource. */
export function attributeOf(span: OtelSpan, name: string): AttributeValue | undefined {
  const own = span.attributes[name];
  return own !== undefined && own !== null ? own : (span.resource[name] ?? undefined);
}

function textAttribute(span: OtelSpan, name: string): string | undefined {
  const v = attributeOf(span, name);
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The session's customId: `session.id`, else `gen_ai.conversation.id`, else `thread_id`. */
export function sessionKeyOf(span: OtelSpan): string | undefined {
  for (const key of SESSION_KEYS) {
    const v = textAttribute(span, key);
    if (v) return v;
  }
  return undefined;
}

export function versionIdOf(span: OtelSpan): string | undefined {
  return textAttribute(span, VERSION_KEY);
}

export function testCaseIdOf(span: OtelSpan): string | undefined {
  return textAttribute(span, TEST_CASE_KEY);
}

/** The platform id of an OTel span: `trace_<16 hex of its span id>`. */
export function platformSpanId(spanIdHex: string): string {
  return `trace_${spanIdHex}`;
}

const OPENINFERENCE_KINDS: Record<string, SpanType> = {
  LLM: 'GENERATION',
  RERANKER: 'RETRIEVER',
  CHAIN: 'CHAIN',
  RETRIEVER: 'RETRIEVER',
  EMBEDDING: 'EMBEDDING',
  TOOL: 'TOOL',
  AGENT: 'AGENT',
  GUARDRAIL: 'GUARDRAIL',
  EVALUATOR: 'EVALUATOR',
};

const GENAI_OPERATIONS: Record<string, SpanType> = {
  chat: 'GENERATION',
  text_completion: 'GENERATION',
  generate_content: 'GENERATION',
  embeddings: 'EMBEDDING',
  execute_tool: 'TOOL',
  invoke_agent: 'AGENT',
  create_agent: 'AGENT',
  retrieval: 'RETRIEVER',
};

/** `openinference.span.kind` first (unknown kinds → SPAN), else `gen_ai.operation.name`, else SPAN; each read from the span, then its resource. */
export function spanTypeOf(span: OtelSpan): SpanType {
  const kind = attributeOf(span, 'openinference.span.kind');
  if (typeof kind === 'string' && kind !== '') return OPENINFERENCE_KINDS[kind.toUpperCase()] ?? 'SPAN';
  const op = attributeOf(span, 'gen_ai.operation.name');
  if (typeof op === 'string' && op !== '') return GENAI_OPERATIONS[op.toLowerCase()] ?? 'SPAN';
  return 'SPAN';
}

/** Milliseconds between two Unix-nanosecond times (0 when the end is missing or earlier). */
export function durationMs(startNs: bigint, endNs: bigint): number {
  if (endNs <= startNs || startNs === 0n) return 0;
  return Number(endNs - startNs) / 1e6;
}

export function isoOfNanos(ns: bigint): string | null {
  if (ns === 0n) return null;
  const ms = Number(ns / 1_000_000n);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

// ---------- message texts ----------

function parseJson(value: AttributeValue | undefined): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The text of a GenAI message: `parts` (text parts joined) or a string `content`. */
function messageText(message: unknown): string | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const m = message as { parts?: unknown; content?: unknown };
  if (Array.isArray(m.parts)) {
    const texts = m.parts
      .map((p) =>
        p && typeof p === 'object' ? (p as { type?: unknown; content?: unknown; text?: unknown }) : undefined,
      )
      .filter((p) => p && (p.type === undefined || p.type === 'text'))
      .map((p) => (typeof p!.content === 'string' ? p!.content : typeof p!.text === 'string' ? p!.text : undefined))
      .filter((t): t is string => t !== undefined);
    if (texts.length) return texts.join('\n');
  }
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) {
    const texts = m.content
      .map((c) =>
        c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string'
          ? (c as { text: string }).text
          : undefined,
      )
      .filter(Boolean);
    if (texts.length) return texts.join('\n');
  }
  return undefined;
}

function messagesOf(value: AttributeValue | undefined): unknown[] | undefined {
  const parsed = parseJson(value);
  return Array.isArray(parsed) ? parsed : undefined;
}

/** The last user message of `gen_ai.input.messages`. */
function lastUserMessage(span: OtelSpan): string | undefined {
  const messages = messagesOf(span.attributes['gen_ai.input.messages']);
  if (!messages) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown } | null;
    if (m && m.role === 'user') {
      const text = messageText(m);
      if (text !== undefined) return text;
    }
  }
  return undefined;
}

/** The text of `gen_ai.output.messages` (assistant messages joined). */
function outputMessages(span: OtelSpan): string | undefined {
  const messages = messagesOf(span.attributes['gen_ai.output.messages']);
  if (!messages) return undefined;
  const texts = messages.map(messageText).filter((t): t is string => t !== undefined);
  return texts.length ? texts.join('\n') : undefined;
}

function stringOf(value: AttributeValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface TurnFields {
  input: string;
  output: string | null;
  usage: { inputTokens: number; outputTokens: number };
  latencyMs: number;
}

function tokenCount(span: OtelSpan, names: string[]): number | undefined {
  for (const name of names) {
    const v = span.attributes[name];
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
    if (n !== undefined && Number.isSafeInteger(n) && n >= 0) return n;
  }
  return undefined;
}

const INPUT_TOKENS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt'];
const OUTPUT_TOKENS = ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion'];

/**
 * A turn from its trace's root span: input = the last user message of `gen_ai.input.messages`,
 * else `input.value`; output = `gen_ai.output.messages`, else `output.value`; usage = the root's
 * `gen_ai.usage.*` (OpenInference `llm.token_count.*` too), else the sum over the GENERATION spans
 * given (the same export); latency = the root's duration.
 */
export function turnFieldsOf(root: OtelSpan, traceSpans: OtelSpan[]): TurnFields {
  const input = lastUserMessage(root) ?? stringOf(root.attributes['input.value']) ?? '';
  const output = outputMessages(root) ?? stringOf(root.attributes['output.value']) ?? null;
  let inputTokens = tokenCount(root, INPUT_TOKENS);
  let outputTokens = tokenCount(root, OUTPUT_TOKENS);
  if (inputTokens === undefined && outputTokens === undefined) {
    const generations = traceSpans.filter((s) => s !== root && spanTypeOf(s) === 'GENERATION');
    inputTokens = generations.reduce((n, s) => n + (tokenCount(s, INPUT_TOKENS) ?? 0), 0);
    outputTokens = generations.reduce((n, s) => n + (tokenCount(s, OUTPUT_TOKENS) ?? 0), 0);
  }
  return {
    input,
    output,
    usage: { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 },
    latencyMs: durationMs(root.startNs, root.endNs),
  };
}

// ---------- spans ----------

export interface SpanFields {
  id: string;
  name: string;
  type: SpanType;
  inputData: Record<string, unknown> | null;
  outputData: Record<string, unknown> | string | null;
  error: string | null;
  latencyMs: number;
  metadata: Attributes;
  parentTraceId: string | null;
  startTime: string | null;
  endTime: string | null;
}

function inputDataOf(span: OtelSpan): Record<string, unknown> | null {
  const messages = messagesOf(span.attributes['gen_ai.input.messages']);
  if (messages) return { messages };
  const args = span.attributes['gen_ai.tool.call.arguments'] ?? span.attributes['input.value'];
  if (args === undefined || args === null) return null;
  const parsed = parseJson(args);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  return { value: args };
}

function outputDataOf(span: OtelSpan): Record<string, unknown> | string | null {
  const messages = messagesOf(span.attributes['gen_ai.output.messages']);
  if (messages) return { messages };
  const result = span.attributes['gen_ai.tool.call.result'] ?? span.attributes['output.value'];
  if (result === undefined || result === null) return null;
  return typeof result === 'string' ? result : { value: result };
}

/** STATUS_CODE_ERROR: the status message, else the first exception event's message, else "error". */
function errorOf(span: OtelSpan): string | null {
  if (span.status.code !== 2) return null;
  if (span.status.message) return span.status.message;
  const exception = span.events.find((e) => e.name === 'exception');
  const message = exception?.attributes['exception.message'] ?? exception?.attributes['exception.type'];
  return typeof message === 'string' && message !== '' ? message : 'error';
}

const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

/**
 * A platform span from an OTel span: the original attributes are its `metadata`, with the OTel
 * identity added under `otel.*` keys (trace id, span id, kind, scope, status) unless present.
 */
export function spanFieldsOf(span: OtelSpan): SpanFields {
  const identity: Attributes = {
    'otel.trace_id': span.traceId,
    'otel.span_id': span.spanId,
    'otel.span_kind': SPAN_KINDS[span.kind] ?? String(span.kind),
    ...(span.scope.name ? { 'otel.scope.name': span.scope.name } : {}),
    ...(span.status.code === 2
      ? { 'otel.status_code': 'ERROR' }
      : span.status.code === 1
        ? { 'otel.status_code': 'OK' }
        : {}),
  };
  const metadata: Attributes = { ...identity, ...span.attributes };
  return {
    id: platformSpanId(span.spanId),
    name: (span.name || 'span').slice(0, 500),
    type: spanTypeOf(span),
    inputData: inputDataOf(span),
    outputData: outputDataOf(span),
    error: errorOf(span)?.slice(0, 100_000) ?? null,
    latencyMs: durationMs(span.startNs, span.endNs),
    metadata,
    parentTraceId: span.parentSpanId ? platformSpanId(span.parentSpanId) : null,
    startTime: isoOfNanos(span.startNs),
    endTime: isoOfNanos(span.endNs),
  };
}

/** The spans of one export grouped by trace, in the order their traces first appear. */
export function groupByTrace(spans: OtelSpan[]): Map<string, OtelSpan[]> {
  const out = new Map<string, OtelSpan[]>();
  for (const s of spans) out.set(s.traceId, [...(out.get(s.traceId) ?? []), s]);
  return out;
}

/** The root of a trace among these spans: the one without a parent. */
export function rootOf(spans: OtelSpan[]): OtelSpan | undefined {
  return spans.find((s) => s.parentSpanId === null);
}

/** The session key of a trace: its root's, else the first span's that has one. */
export function traceSessionKey(spans: OtelSpan[]): { key: string; from: OtelSpan } | undefined {
  const ordered = [...spans].sort((a, b) => Number(a.parentSpanId !== null) - Number(b.parentSpanId !== null));
  for (const s of ordered) {
    const key = sessionKeyOf(s);
    if (key) return { key, from: s };
  }
  return undefined;
}
