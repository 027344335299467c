import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import {
  decodedBody,
  decodeExportRequest,
  decodeExportResponse,
  decodeStatus,
  encodeExportResponse,
  encodeStatus,
  formatOf,
  MAX_DECODED_BYTES,
  type OtelSpan,
} from '../../shared/domain/telemetry/otlp.js';
import {
  groupByTrace,
  rootOf,
  sessionKeyOf,
  spanFieldsOf,
  spanTypeOf,
  traceSessionKey,
  turnFieldsOf,
  versionIdOf,
  testCaseIdOf,
} from '../../shared/domain/telemetry/mapping.js';
import { genAiTurn, jsonBody, jsonRequest, jsonSpan, protobufBody, sdkTracer } from '../support/otel.js';

const T = '0af7651916cd43dd8448eb211c80319c';
const T2 = '4bf92f3577b34da6a3ce929d0e0e4736';
const hex = (n: number) => n.toString(16).padStart(16, '0');

function decodeJson(body: Record<string, unknown>): OtelSpan[] {
  return decodeExportRequest(Buffer.from(JSON.stringify(body)), 'json');
}

describe('OTLP decoding', () => {
  it('reads the OpenTelemetry JS SDK protobuf and JSON bodies alike (ids, times, attributes, resource, status)', async () => {
    const sdk = sdkTracer({ 'service.name': 'bot', 'platform.version.id': 'ver_1' });
    genAiTurn(
      sdk.tracer,
      {
        session: 'conv-1',
        input: 'Where is my order?',
        output: 'It ships today.',
        tool: { name: 'lookup_order', result: 'shipped' },
        usage: { input: 12, output: 5 },
      },
      1_700_000_000_000,
    );
    const made = await sdk.spans();
    const fromProto = decodeExportRequest(protobufBody(made), 'protobuf');
    const fromJson = decodeExportRequest(jsonBody(made), 'json');
    expect(fromProto).toHaveLength(3);
    expect(fromJson).toEqual(fromProto);
    const root = rootOf(fromProto)!;
    expect(root.name).toBe('invoke_agent support-bot');
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(root.endNs - root.startNs).toBe(1_000_000_000n);
    expect(root.resource['platform.version.id']).toBe('ver_1');
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe(12);
    expect(root.status.code).toBe(1);
    const children = fromProto.filter((s) => s !== root);
    expect(children.every((c) => c.parentSpanId === root.spanId && c.traceId === root.traceId)).toBe(true);
  });

  it('accepts OTLP JSON with hex ids in either case, integer enums and int64 as strings or numbers', () => {
    const spans = decodeJson({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'platform.version.id', value: { stringValue: 'ver_1' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: T.toUpperCase(),
                  spanId: 'AAAAAAAAAAAAAAAA',
                  name: 'root',
                  kind: 2,
                  startTimeUnixNano: 1_700_000_000_000_000_000,
                  endTimeUnixNano: '1700000000250000000',
                  attributes: [
                    // biome-ignore lint/correctness/noPrecisionLoss: a JSON exporter's unsafe integer, as it arrives.
                    { key: 'n', value: { intValue: 9007199254740993 } },
                    { key: 'big', value: { intValue: '9007199254740993' } },
                  ],
                  unknownField: true,
                },
              ],
            },
          ],
        },
      ],
    });
    expect(spans[0]!.traceId).toBe(T);
    expect(spans[0]!.spanId).toBe('aaaaaaaaaaaaaaaa');
    expect(spans[0]!.kind).toBe(2);
    expect(spanFieldsOf(spans[0]!).latencyMs).toBe(250);
    expect(spans[0]!.attributes.big).toBe('9007199254740993'); // beyond 2^53: kept exact as text
  });

  it('refuses undecodable bodies with 400 naming the problem', () => {
    expect(() => decodeExportRequest(Buffer.from([0x0a, 0xff, 0xff, 0xff]), 'protobuf')).toThrow(
      /not a protobuf ExportTraceServiceRequest/,
    );
    expect(() => decodeExportRequest(Buffer.from('{not json'), 'json')).toThrow(/not valid JSON/);
    expect(() => decodeExportRequest(Buffer.from('[]'), 'json')).toThrow(/must be a JSON object/);
    expect(() => decodeJson({ resourceSpans: 'x' })).toThrow(/resourceSpans/);
    expect(() =>
      decodeJson(
        jsonRequest({}, [
          {
            ...jsonSpan({ traceId: T, spanId: hex(1), name: 'x', startMs: 1, endMs: 2, attributes: {} }),
            traceId: 'zz',
          },
        ]),
      ),
    ).toThrow(/resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId must be a hex string/);
    expect(() =>
      decodeJson(
        jsonRequest({}, [
          jsonSpan({ traceId: 'abcd', spanId: hex(1), name: 'x', startMs: 1, endMs: 2, attributes: {} }),
        ]),
      ),
    ).toThrow(/traceId must be 16 bytes/);
  });

  it('limits: 1000 spans, 5 MiB decoded (gzip included), known media types and encodings', () => {
    const many = jsonRequest(
      {},
      Array.from({ length: 1001 }, (_, i) =>
        jsonSpan({ traceId: T, spanId: hex(i + 1), name: 's', startMs: 1, endMs: 2, attributes: {} }),
      ),
    );
    expect(() => decodeJson(many)).toThrow(
      expect.objectContaining({ kind: 'tooLarge', message: expect.stringMatching(/at most 1000 spans/) }),
    );
    const big = Buffer.alloc(MAX_DECODED_BYTES + 1, 0x20);
    expect(() => decodedBody(gzipSync(big), 'gzip')).toThrow(expect.objectContaining({ kind: 'tooLarge' }));
    expect(() => decodedBody(big, undefined)).toThrow(expect.objectContaining({ kind: 'tooLarge' }));
    expect(decodedBody(gzipSync(Buffer.from('{}')), 'gzip').toString()).toBe('{}');
    expect(() => decodedBody(Buffer.from('not gzip'), 'gzip')).toThrow(expect.objectContaining({ kind: 'invalid' }));
    expect(() => decodedBody(Buffer.from('{}'), 'br')).toThrow(
      expect.objectContaining({ kind: 'unsupportedMediaType' }),
    );
    expect(formatOf('application/x-protobuf')).toBe('protobuf');
    expect(formatOf('application/json; charset=utf-8')).toBe('json');
    expect(() => formatOf('text/plain')).toThrow(expect.objectContaining({ kind: 'unsupportedMediaType' }));
    expect(() => formatOf(undefined)).toThrow(expect.objectContaining({ kind: 'unsupportedMediaType' }));
  });

  it('answers in the request encoding: empty success, partialSuccess, protobuf google.rpc.Status', () => {
    expect(encodeExportResponse('protobuf')).toHaveLength(0);
    expect(
      decodeExportResponse(encodeExportResponse('protobuf', { rejectedSpans: 2, errorMessage: 'no version' })),
    ).toEqual({ partialSuccess: { rejectedSpans: 2, errorMessage: 'no version' } });
    expect(JSON.parse(encodeExportResponse('json', { rejectedSpans: 1, errorMessage: 'x' }).toString())).toEqual({
      partialSuccess: { rejectedSpans: 1, errorMessage: 'x' },
    });
    expect(decodeStatus(encodeStatus(400, 'bad body'))).toEqual({ code: 3, message: 'bad body' });
  });

  it('keeps attribute keys and values DynamoDB can store', () => {
    const [span] = decodeJson(
      jsonRequest({}, [
        {
          ...jsonSpan({ traceId: T, spanId: hex(1), name: 'bad\ud800name', startMs: 1, endMs: 2, attributes: {} }),
          attributes: [
            { key: '__proto__', value: { stringValue: 'x' } },
            { key: '', value: { stringValue: 'x' } },
            { key: 'huge', value: { doubleValue: 1e300 } },
            { key: 'tiny', value: { doubleValue: 1e-200 } },
            {
              key: 'list',
              value: {
                arrayValue: {
                  values: [{ intValue: '1' }, { kvlistValue: { values: [{ key: 'a', value: { boolValue: true } }] } }],
                },
              },
            },
          ],
        },
      ]),
    );
    expect(Object.keys(span!.attributes)).toEqual(['huge', 'tiny', 'list']);
    expect(span!.attributes.huge).toBe('1e+300');
    expect(span!.attributes.tiny).toBe('1e-200');
    expect(span!.attributes.list).toEqual([1, { a: true }]);
    expect(span!.name).toBe('bad\ufffdname');
  });
});

describe('OTel span mapping', () => {
  it('GenAI conventions (the JS SDK): session.id, turn from the root messages, types from gen_ai.operation.name', async () => {
    const sdk = sdkTracer({ 'platform.version.id': 'ver_1' });
    genAiTurn(
      sdk.tracer,
      {
        session: 'conv-1',
        input: 'Where is my order?',
        output: 'It ships today.',
        tool: { name: 'lookup_order', result: 'shipped' },
        usage: { input: 12, output: 5 },
      },
      1_700_000_000_000,
    );
    const spans = decodeExportRequest(protobufBody(await sdk.spans()), 'protobuf');
    const root = rootOf(spans)!;
    expect(sessionKeyOf(root)).toBe('conv-1');
    expect(versionIdOf(root)).toBe('ver_1'); // from the resource
    expect(turnFieldsOf(root, spans)).toEqual({
      input: 'Where is my order?',
      output: 'It ships today.',
      usage: { inputTokens: 12, outputTokens: 5 },
      latencyMs: 1000,
    });
    const byName = Object.fromEntries(spans.map((s) => [s.name, spanFieldsOf(s)]));
    expect(byName['invoke_agent support-bot']!.type).toBe('AGENT');
    expect(byName['chat gpt-4.1-mini']!.type).toBe('GENERATION');
    const tool = byName['execute_tool lookup_order']!;
    expect(tool).toMatchObject({
      type: 'TOOL',
      parentTraceId: `trace_${root.spanId}`,
      outputData: 'shipped',
      latencyMs: 190,
      error: null,
    });
    expect(tool.id).toBe(`trace_${spans.find((s) => s.name.startsWith('execute_tool'))!.spanId}`);
    expect(tool.metadata).toMatchObject({
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.operation.name': 'execute_tool',
      'otel.trace_id': root.traceId,
      'otel.span_kind': 'INTERNAL',
    });
    expect(tool.startTime).toBe('2023-11-14T22:13:20.410Z');
  });

  it('OpenAI Agents SDK (OpenInference): AGENT root with input.value/output.value, usage summed from LLM spans, guardrail and tool', () => {
    const attrs = { 'session.id': 'thread_abc' };
    const spans = decodeJson(
      jsonRequest({ 'platform.version.id': 'ver_1', 'service.name': 'agents' }, [
        jsonSpan({
          traceId: T,
          spanId: hex(1),
          name: 'Agent workflow',
          startMs: 1000,
          endMs: 3500,
          attributes: {
            ...attrs,
            'openinference.span.kind': 'AGENT',
            'input.value': 'Book a table for two',
            'output.value': 'Booked for 8pm.',
          },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(2),
          parentSpanId: hex(1),
          name: 'Concierge',
          startMs: 1010,
          endMs: 3400,
          attributes: { ...attrs, 'openinference.span.kind': 'AGENT' },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(3),
          parentSpanId: hex(2),
          name: 'input_guardrail',
          startMs: 1020,
          endMs: 1100,
          attributes: { ...attrs, 'openinference.span.kind': 'GUARDRAIL' },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(4),
          parentSpanId: hex(2),
          name: 'response',
          startMs: 1100,
          endMs: 2000,
          attributes: {
            ...attrs,
            'openinference.span.kind': 'LLM',
            'llm.token_count.prompt': 40,
            'llm.token_count.completion': 8,
          },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(5),
          parentSpanId: hex(2),
          name: 'book_table',
          startMs: 2000,
          endMs: 2600,
          attributes: {
            ...attrs,
            'openinference.span.kind': 'TOOL',
            'input.value': '{"people":2}',
            'output.value': 'ok',
          },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(6),
          parentSpanId: hex(2),
          name: 'response',
          startMs: 2600,
          endMs: 3300,
          attributes: {
            ...attrs,
            'openinference.span.kind': 'LLM',
            'llm.token_count.prompt': 60,
            'llm.token_count.completion': 6,
          },
        }),
      ]),
    );
    const root = rootOf(spans)!;
    expect(turnFieldsOf(root, spans)).toEqual({
      input: 'Book a table for two',
      output: 'Booked for 8pm.',
      usage: { inputTokens: 100, outputTokens: 14 },
      latencyMs: 2500,
    });
    expect(spans.map((s) => spanTypeOf(s))).toEqual([
      'AGENT',
      'AGENT',
      'GUARDRAIL',
      'GENERATION',
      'TOOL',
      'GENERATION',
    ]);
    expect(spanFieldsOf(spans[4]!)).toMatchObject({
      inputData: { people: 2 },
      outputData: 'ok',
      parentTraceId: `trace_${hex(2)}`,
    });
  });

  it('LangChain (OpenInference): CHAIN root, RETRIEVER, RERANKER → RETRIEVER, EMBEDDING, unknown kinds → SPAN, thread_id on the root only, errors', () => {
    const spans = decodeJson(
      jsonRequest({ 'platform.version.id': 'ver_2' }, [
        jsonSpan({
          traceId: T2,
          spanId: hex(11),
          parentSpanId: hex(10),
          name: 'VectorStoreRetriever',
          startMs: 10,
          endMs: 40,
          attributes: { 'openinference.span.kind': 'RETRIEVER' },
        }),
        jsonSpan({
          traceId: T2,
          spanId: hex(12),
          parentSpanId: hex(10),
          name: 'CohereRerank',
          startMs: 40,
          endMs: 50,
          attributes: { 'openinference.span.kind': 'RERANKER' },
        }),
        jsonSpan({
          traceId: T2,
          spanId: hex(13),
          parentSpanId: hex(11),
          name: 'OpenAIEmbeddings',
          startMs: 12,
          endMs: 20,
          attributes: { 'openinference.span.kind': 'EMBEDDING' },
        }),
        jsonSpan({
          traceId: T2,
          spanId: hex(14),
          parentSpanId: hex(10),
          name: 'ChatPromptTemplate',
          startMs: 50,
          endMs: 51,
          attributes: { 'openinference.span.kind': 'PROMPT' },
        }),
        jsonSpan({
          traceId: T2,
          spanId: hex(15),
          parentSpanId: hex(10),
          name: 'ChatOpenAI',
          startMs: 51,
          endMs: 90,
          attributes: { 'openinference.span.kind': 'LLM' },
          error: 'rate limited',
        }),
        jsonSpan({
          traceId: T2,
          spanId: hex(10),
          name: 'RunnableSequence',
          startMs: 1000,
          endMs: 1100,
          attributes: {
            'openinference.span.kind': 'CHAIN',
            thread_id: 'lc-thread-7',
            'input.value': '{"input": "What is our refund window?"}',
            'output.value': '30 days.',
          },
        }),
      ]),
    );
    expect(spans.map((s) => spanTypeOf(s))).toEqual([
      'RETRIEVER',
      'RETRIEVER',
      'EMBEDDING',
      'SPAN',
      'GENERATION',
      'CHAIN',
    ]);
    expect(sessionKeyOf(spans[0]!)).toBeUndefined();
    expect(traceSessionKey(spans)).toEqual({ key: 'lc-thread-7', from: spans[5] });
    const root = rootOf(spans)!;
    expect(root.name).toBe('RunnableSequence');
    expect(turnFieldsOf(root, spans)).toMatchObject({
      input: '{"input": "What is our refund window?"}',
      output: '30 days.',
      latencyMs: 100,
    });
    expect(spanFieldsOf(spans[4]!)).toMatchObject({ error: 'rate limited', metadata: { 'otel.status_code': 'ERROR' } });
    expect(groupByTrace(spans).get(T2)).toHaveLength(6);
  });

  it('session key order: session.id, then gen_ai.conversation.id, then thread_id; span before resource; test case and version', () => {
    const [a, b, c] = decodeJson(
      jsonRequest({ 'session.id': 'from-resource', 'platform.version.id': 'ver_r' }, [
        jsonSpan({
          traceId: T,
          spanId: hex(1),
          name: 'a',
          startMs: 1,
          endMs: 2,
          attributes: { 'session.id': 'from-span', 'platform.version.id': 'ver_s', 'platform.test_case.id': 'tcase_1' },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(2),
          name: 'b',
          startMs: 1,
          endMs: 2,
          attributes: { 'gen_ai.conversation.id': 'conv' },
        }),
        jsonSpan({ traceId: T, spanId: hex(3), name: 'c', startMs: 1, endMs: 2, attributes: {} }),
      ]),
    );
    expect([sessionKeyOf(a!), sessionKeyOf(b!), sessionKeyOf(c!)]).toEqual([
      'from-span',
      'from-resource',
      'from-resource',
    ]);
    expect([versionIdOf(a!), versionIdOf(c!)]).toEqual(['ver_s', 'ver_r']);
    expect([testCaseIdOf(a!), testCaseIdOf(c!)]).toEqual(['tcase_1', undefined]);
    const [d] = decodeJson(
      jsonRequest({}, [
        jsonSpan({
          traceId: T,
          spanId: hex(4),
          name: 'd',
          startMs: 1,
          endMs: 2,
          attributes: { 'gen_ai.conversation.id': 'conv', thread_id: 't' },
        }),
      ]),
    );
    expect(sessionKeyOf(d!)).toBe('conv');
    expect(versionIdOf(d!)).toBeUndefined();
  });

  it('span types read from the span, then from its resource', () => {
    const [own, fromKind] = decodeJson(
      jsonRequest({ 'openinference.span.kind': 'TOOL' }, [
        jsonSpan({
          traceId: T,
          spanId: hex(1),
          name: 'own',
          startMs: 1,
          endMs: 2,
          attributes: { 'openinference.span.kind': 'LLM' },
        }),
        jsonSpan({
          traceId: T,
          spanId: hex(2),
          name: 'resource',
          startMs: 1,
          endMs: 2,
          attributes: { 'gen_ai.operation.name': 'chat' },
        }),
      ]),
    );
    expect([spanTypeOf(own!), spanTypeOf(fromKind!)]).toEqual(['GENERATION', 'TOOL']);
    const [fromOp] = decodeJson(
      jsonRequest({ 'gen_ai.operation.name': 'retrieval' }, [
        jsonSpan({ traceId: T, spanId: hex(3), name: 'r', startMs: 1, endMs: 2, attributes: {} }),
      ]),
    );
    expect(spanTypeOf(fromOp!)).toBe('RETRIEVER');
  });

  it('gen_ai.operation.name types; last user message; usage absent → 0', () => {
    const ops = [
      'chat',
      'text_completion',
      'generate_content',
      'embeddings',
      'execute_tool',
      'invoke_agent',
      'create_agent',
      'retrieval',
      'something_else',
    ];
    const spans = decodeJson(
      jsonRequest(
        {},
        ops.map((op, i) =>
          jsonSpan({
            traceId: T,
            spanId: hex(i + 1),
            name: op,
            startMs: 1,
            endMs: 2,
            attributes: { 'gen_ai.operation.name': op },
          }),
        ),
      ),
    );
    expect(spans.map((s) => spanTypeOf(s))).toEqual([
      'GENERATION',
      'GENERATION',
      'GENERATION',
      'EMBEDDING',
      'TOOL',
      'AGENT',
      'AGENT',
      'RETRIEVER',
      'SPAN',
    ]);
    const [chat] = decodeJson(
      jsonRequest({}, [
        jsonSpan({
          traceId: T,
          spanId: hex(1),
          name: 'chat',
          startMs: 1000,
          endMs: 1005,
          attributes: {
            'gen_ai.input.messages': JSON.stringify([
              { role: 'user', content: 'first' },
              { role: 'assistant', content: 'a' },
              { role: 'user', parts: [{ type: 'text', content: 'second' }] },
            ]),
          },
        }),
      ]),
    );
    expect(turnFieldsOf(chat!, [chat!])).toEqual({
      input: 'second',
      output: null,
      usage: { inputTokens: 0, outputTokens: 0 },
      latencyMs: 5,
    });
  });
});

describe('vendored OTLP definitions', () => {
  it('otlp.json is the descriptor of the vendored .proto files (regenerate: npx tsx shared/domain/telemetry/proto/generate.ts)', async () => {
    const { readFileSync } = await import('node:fs');
    const { buildDescriptor, DESCRIPTOR_PATH } = await import('../../shared/domain/telemetry/proto/generate.js');
    expect(readFileSync(DESCRIPTOR_PATH, 'utf8')).toBe(buildDescriptor());
  });
});
