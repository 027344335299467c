import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { dispatch } from '../../infra/local/gateway.js';
import { decodeExportResponse, decodeStatus, encodeExportResponse } from '../../shared/domain/telemetry/otlp.js';
import { newTenant } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { genAiTurn, jsonRequest, jsonSpan, protobufBody, sdkTracer } from '../support/otel.js';
import { parkedSpans, tracesWithParkedSpans } from '../../shared/db/telemetry.js';
import { decodeSpan, encodeSpan } from '../../shared/domain/telemetry/held-spans.js';

const PROTOBUF = 'application/x-protobuf';
let traceCounter = 0;
/** Unique hex ids per test run (span ids are global: `trace_<span id>`). */
const run = Date.now().toString(16).padStart(12, '0').slice(-12);
const traceId = () => `${run}${(++traceCounter).toString(16).padStart(20, '0')}`;
let spanCounter = 0;
const spanId = () => `${run.slice(-8)}${(++spanCounter).toString(16).padStart(8, '0')}`;

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const otlp = async (
    body: Buffer | string,
    contentType = PROTOBUF,
    headers: Record<string, string> = {},
    key: string | null = t.key,
  ) => {
    const res = await dispatch({
      method: 'POST',
      path: '/otel/v1/traces',
      headers: { 'content-type': contentType, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      body,
    });
    return { status: res.statusCode, headers: res.headers, bytes: res.bytes ?? Buffer.from(res.body), text: res.body };
  };
  const json = (request: Record<string, unknown>, headers: Record<string, string> = {}) =>
    otlp(JSON.stringify(request), 'application/json', headers);
  const sessionsOf = async (customId: string) =>
    (await t.api.get('/sessions', { customIds: customId })).body as { id: string; [k: string]: unknown }[];
  const turnsOf = async (sessionId: string) =>
    (await t.api.get('/inferenceResults', { sessionIds: sessionId })).body as Record<string, unknown>[];
  const spansOf = async (sessionId: string) =>
    (await t.api.get('/traces', { sessionIds: sessionId })).body as Record<string, unknown>[];
  return { ...t, product, version, otlp, json, sessionsOf, turnsOf, spansOf };
}

describe('POST /otel/v1/traces', () => {
  it('protobuf from the JS SDK: one session, a turn per trace, every span with its parent and type; a retried export changes nothing', async () => {
    const t = await setup();
    const sdk = sdkTracer({ 'service.name': 'bot', 'platform.version.id': t.version.id });
    const conv = `conv-${traceId()}`;
    genAiTurn(
      sdk.tracer,
      {
        session: conv,
        input: 'Where is my order?',
        output: 'It ships today.',
        tool: { name: 'lookup_order', result: 'shipped' },
        usage: { input: 12, output: 5 },
      },
      Date.now() - 5000,
    );
    genAiTurn(
      sdk.tracer,
      {
        session: conv,
        input: 'Can I change the address?',
        output: 'Yes, until it ships.',
        usage: { input: 20, output: 7 },
      },
      Date.now() - 2000,
    );
    const body = protobufBody(await sdk.spans());
    const res = await t.otlp(body);
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe(PROTOBUF);
    expect(decodeExportResponse(res.bytes)).toEqual({}); // full success: partialSuccess unset

    const [session, ...more] = await t.sessionsOf(conv);
    expect(more).toEqual([]);
    expect(session).toMatchObject({
      customId: conv,
      versionId: t.version.id,
      isProduction: true,
      testCaseId: null,
      turnCount: 2,
    });
    const turns = await t.turnsOf(session!.id);
    expect(turns.map((x) => [x.index, x.input, x.output, x.latencyMs, x.usage])).toEqual([
      [1, 'Where is my order?', 'It ships today.', 1000, { inputTokens: 12, outputTokens: 5, cacheReadInputTokens: 0 }],
      [
        2,
        'Can I change the address?',
        'Yes, until it ships.',
        1000,
        { inputTokens: 20, outputTokens: 7, cacheReadInputTokens: 0 },
      ],
    ]);
    const spans = await t.spansOf(session!.id);
    expect(spans).toHaveLength(5);
    const roots = spans.filter((s) => s.parentTraceId === null);
    expect(roots.map((s) => s.type)).toEqual(['AGENT', 'AGENT']);
    for (const s of spans.filter((x) => x.parentTraceId !== null)) {
      const parent = roots.find((r) => r.id === s.parentTraceId)!;
      expect(parent.inferenceResultId).toBe(s.inferenceResultId);
    }
    const tool = spans.find((s) => s.type === 'TOOL')!;
    expect(tool).toMatchObject({
      name: 'execute_tool lookup_order',
      outputData: 'shipped',
      inferenceResultId: turns[0]!.id,
      metadata: { 'gen_ai.tool.name': 'lookup_order' },
    });
    expect(tool.id).toMatch(/^trace_[0-9a-f]{16}$/);
    expect((await t.api.get(`/traces/${tool.id}`)).body).toEqual(tool);

    // The exporter retries the same request: nothing changes.
    const again = await t.otlp(body);
    expect(again.status).toBe(200);
    expect(await t.sessionsOf(conv)).toEqual([session]);
    expect(await t.turnsOf(session!.id)).toEqual(turns);
    expect(await t.spansOf(session!.id)).toEqual(spans);
  });

  it('JSON and gzip; a span without platform.version.id is rejected, the rest accepted (partialSuccess)', async () => {
    const t = await setup();
    const trace = traceId();
    const [root, child, orphan] = [spanId(), spanId(), spanId()];
    const request = {
      resourceSpans: [
        ...(jsonRequest({ 'platform.version.id': t.version.id }, [
          jsonSpan({
            traceId: trace,
            spanId: root,
            name: 'agent',
            startMs: 1_700_000_000_000,
            endMs: 1_700_000_000_800,
            attributes: { 'session.id': `s-${trace}`, 'input.value': 'hi', 'output.value': 'hello' },
          }),
          jsonSpan({
            traceId: trace,
            spanId: child,
            parentSpanId: root,
            name: 'llm',
            startMs: 1_700_000_000_100,
            endMs: 1_700_000_000_700,
            attributes: { 'openinference.span.kind': 'LLM' },
            error: 'timeout',
          }),
        ]).resourceSpans as unknown[]),
        ...(jsonRequest({}, [
          jsonSpan({
            traceId: trace,
            spanId: orphan,
            parentSpanId: root,
            name: 'tool',
            startMs: 1_700_000_000_200,
            endMs: 1_700_000_000_300,
            attributes: {},
          }),
        ]).resourceSpans as unknown[]),
      ],
    };
    const res = await t.otlp(gzipSync(JSON.stringify(request)), 'application/json', { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('application/json');
    const answer = JSON.parse(res.text);
    expect(answer.partialSuccess.rejectedSpans).toBe(1);
    expect(answer.partialSuccess.errorMessage).toContain(
      `span ${orphan}: no platform.version.id attribute on the span or its resource`,
    );
    const [session] = await t.sessionsOf(`s-${trace}`);
    const spans = await t.spansOf(session!.id);
    expect(spans.map((s) => [s.id, s.type, s.error])).toEqual([
      [`trace_${root}`, 'SPAN', null],
      [`trace_${child}`, 'GENERATION', 'timeout'],
    ]);
    expect((await t.api.get(`/traces/trace_${orphan}`)).status).toBe(404);
    expect((await t.turnsOf(session!.id))[0]).toMatchObject({ input: 'hi', output: 'hello', latencyMs: 800 });
  });

  it('children before their root, in separate exports: one turn, filled in when the root arrives', async () => {
    const t = await setup();
    const trace = traceId();
    const [root, llm, tool] = [spanId(), spanId(), spanId()];
    const conv = `late-${trace}`;
    const resource = { 'platform.version.id': t.version.id };
    const first = await t.json(
      jsonRequest(resource, [
        jsonSpan({
          traceId: trace,
          spanId: llm,
          parentSpanId: root,
          name: 'chat',
          startMs: 1_700_000_000_100,
          endMs: 1_700_000_000_400,
          attributes: { 'gen_ai.conversation.id': conv, 'gen_ai.operation.name': 'chat' },
        }),
      ]),
    );
    expect(JSON.parse(first.text)).toEqual({});
    const [session] = await t.sessionsOf(conv);
    expect((await t.turnsOf(session!.id)).map((x) => [x.input, x.output])).toEqual([['', null]]);
    // A later child without any session attribute joins through its trace.
    await t.json(
      jsonRequest(resource, [
        jsonSpan({
          traceId: trace,
          spanId: tool,
          parentSpanId: root,
          name: 'execute_tool search',
          startMs: 1_700_000_000_400,
          endMs: 1_700_000_000_500,
          attributes: { 'gen_ai.operation.name': 'execute_tool' },
        }),
      ]),
    );
    const rootSpan = jsonSpan({
      traceId: trace,
      spanId: root,
      name: 'invoke_agent',
      startMs: 1_700_000_000_000,
      endMs: 1_700_000_001_500,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': conv,
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Find my invoice' }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'Here it is.' }] },
        ]),
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.output_tokens': 4,
      },
    });
    await t.json(jsonRequest(resource, [rootSpan]));
    const turns = await t.turnsOf(session!.id);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({
      input: 'Find my invoice',
      output: 'Here it is.',
      latencyMs: 1500,
      usage: { inputTokens: 30, outputTokens: 4 },
    });
    const spans = await t.spansOf(session!.id);
    expect(spans.map((s) => [s.id, s.type, s.parentTraceId, s.inferenceResultId])).toEqual([
      [`trace_${root}`, 'AGENT', null, turns[0]!.id],
      [`trace_${llm}`, 'GENERATION', `trace_${root}`, turns[0]!.id],
      [`trace_${tool}`, 'TOOL', `trace_${root}`, turns[0]!.id],
    ]);
    // The root sent again changes nothing.
    await t.json(jsonRequest(resource, [rootSpan]));
    expect(await t.turnsOf(session!.id)).toEqual(turns);
  });

  it('children that name no session, exported before their root: held (accepted with a warning), placed when the root names it', async () => {
    const t = await setup();
    const trace = traceId();
    const [root, llm, tool] = [spanId(), spanId(), spanId()];
    const conv = `held-${trace}`;
    const resource = { 'platform.version.id': t.version.id };
    const llmSpan = jsonSpan({
      traceId: trace,
      spanId: llm,
      parentSpanId: root,
      name: 'chat',
      startMs: 1_700_000_000_100,
      endMs: 1_700_000_000_400,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 12 },
    });
    const first = await t.json(jsonRequest(resource, [llmSpan]));
    expect(first.status).toBe(200);
    const warned = JSON.parse(first.text);
    expect(warned.partialSuccess.rejectedSpans).toBe(0);
    expect(warned.partialSuccess.errorMessage).toBe(
      `span ${llm}: no session.id, gen_ai.conversation.id or thread_id attribute on the span, its resource or another span of its trace: held for up to 24 hours until a span of trace ${trace} names its session`,
    );
    // the same export again (exporters retry), and a second child in protobuf: held too
    expect((await t.json(jsonRequest(resource, [llmSpan]))).status).toBe(200);
    const second = JSON.parse(
      (
        await t.json(
          jsonRequest(resource, [
            jsonSpan({
              traceId: trace,
              spanId: tool,
              parentSpanId: root,
              name: 'execute_tool search',
              startMs: 1_700_000_000_400,
              endMs: 1_700_000_000_500,
              attributes: { 'gen_ai.operation.name': 'execute_tool' },
            }),
          ]),
        )
      ).text,
    );
    expect(second.partialSuccess).toMatchObject({
      rejectedSpans: 0,
      errorMessage: expect.stringContaining(`span ${tool}: no session.id`),
    });
    // in protobuf the warning is a partialSuccess with no rejected span, as OTLP/HTTP allows
    expect(decodeExportResponse(encodeExportResponse('protobuf', { rejectedSpans: 0, errorMessage: 'held' }))).toEqual({
      partialSuccess: { rejectedSpans: 0, errorMessage: 'held' },
    });
    expect(await t.sessionsOf(conv)).toEqual([]);
    expect((await t.api.get(`/traces/trace_${llm}`)).status).toBe(404);

    const rootSpan = jsonSpan({
      traceId: trace,
      spanId: root,
      name: 'invoke_agent',
      startMs: 1_700_000_000_000,
      endMs: 1_700_000_001_000,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': conv,
        'input.value': 'Find my invoice',
        'output.value': 'Here it is.',
      },
    });
    expect(JSON.parse((await t.json(jsonRequest(resource, [rootSpan]))).text)).toEqual({});
    const [session] = await t.sessionsOf(conv);
    const turns = await t.turnsOf(session!.id);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ input: 'Find my invoice', output: 'Here it is.', latencyMs: 1000 });
    const spans = await t.spansOf(session!.id);
    expect(spans.map((s) => [s.id, s.type, s.parentTraceId, s.inferenceResultId])).toEqual([
      [`trace_${root}`, 'AGENT', null, turns[0]!.id],
      [`trace_${llm}`, 'GENERATION', `trace_${root}`, turns[0]!.id],
      [`trace_${tool}`, 'TOOL', `trace_${root}`, turns[0]!.id],
    ]);
    expect(spans[1]).toMatchObject({
      startTime: new Date(1_700_000_000_100).toISOString(),
      endTime: new Date(1_700_000_000_400).toISOString(),
    });
    // released once placed: nothing is held for the trace any more
    expect(await tracesWithParkedSpans(t.org.id, [trace])).toEqual(new Set());
    // a held child sent again after its trace was placed joins it, changing nothing
    await t.json(jsonRequest(resource, [llmSpan]));
    expect(await t.spansOf(session!.id)).toEqual(spans);
  });

  it('a root that names no session is held and fills in the turn a later child with the session key makes', async () => {
    const t = await setup();
    const trace = traceId();
    const [root, child] = [spanId(), spanId()];
    const conv = `late-key-${trace}`;
    const resource = { 'platform.version.id': t.version.id };
    const first = await t.json(
      jsonRequest(resource, [
        jsonSpan({
          traceId: trace,
          spanId: root,
          name: 'turn',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_900,
          attributes: { 'input.value': 'hello?', 'output.value': 'hi!' },
        }),
      ]),
    );
    expect(JSON.parse(first.text).partialSuccess).toMatchObject({ rejectedSpans: 0 });
    await t.json(
      jsonRequest(resource, [
        jsonSpan({
          traceId: trace,
          spanId: child,
          parentSpanId: root,
          name: 'chat',
          startMs: 1_700_000_000_100,
          endMs: 1_700_000_000_200,
          attributes: { 'session.id': conv, 'openinference.span.kind': 'LLM' },
        }),
      ]),
    );
    const [session] = await t.sessionsOf(conv);
    const turns = await t.turnsOf(session!.id);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ input: 'hello?', output: 'hi!', latencyMs: 900 });
    expect((await t.spansOf(session!.id)).map((s) => [s.id, s.type])).toEqual([
      [`trace_${root}`, 'SPAN'],
      [`trace_${child}`, 'GENERATION'],
    ]);
  });

  it('held children and their root exported at the same time: every span placed once, nothing left held', async () => {
    const t = await setup();
    const resource = { 'platform.version.id': t.version.id };
    const traces = Array.from({ length: 6 }, () => ({ trace: traceId(), root: spanId(), child: spanId() }));
    await Promise.all(
      traces.flatMap(({ trace, root, child }) => [
        t.json(
          jsonRequest(resource, [
            jsonSpan({
              traceId: trace,
              spanId: child,
              parentSpanId: root,
              name: 'chat',
              startMs: 1_700_000_000_100,
              endMs: 1_700_000_000_200,
              attributes: { 'openinference.span.kind': 'LLM' },
            }),
          ]),
        ),
        t.json(
          jsonRequest(resource, [
            jsonSpan({
              traceId: trace,
              spanId: root,
              name: 'turn',
              startMs: 1_700_000_000_000,
              endMs: 1_700_000_000_300,
              attributes: { 'session.id': `both-${trace}`, 'input.value': 'q' },
            }),
          ]),
        ),
      ]),
    );
    for (const { trace, root, child } of traces) {
      const [session] = await t.sessionsOf(`both-${trace}`);
      expect((await t.spansOf(session!.id)).map((s) => s.id)).toEqual([`trace_${root}`, `trace_${child}`]);
      expect(await t.turnsOf(session!.id)).toHaveLength(1);
    }
    expect(
      await tracesWithParkedSpans(
        t.org.id,
        traces.map((x) => x.trace),
      ),
    ).toEqual(new Set());
    // no held span item is left either (also when the export that held it found the turn itself)
    for (const { trace } of traces) expect((await parkedSpans(t.org.id, trace)).size).toBe(0);
  });

  it('a held span keeps every field: nanosecond times, events, attributes, resource', () => {
    const span = {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      parentSpanId: 'c'.repeat(16),
      name: 'chat',
      kind: 3,
      startNs: 1_700_000_000_123_456_789n,
      endNs: 1_700_000_000_987_654_321n,
      attributes: { 'gen_ai.usage.input_tokens': 12, nested: { list: [1, 'two', true, null] } },
      resource: { 'service.name': 'bot' },
      scope: { name: 'test', version: '1' },
      status: { code: 2, message: 'boom' },
      events: [{ name: 'exception', timeNs: 1_700_000_000_500_000_001n, attributes: { 'exception.message': 'boom' } }],
    };
    expect(decodeSpan(encodeSpan(span))).toEqual(span);
  });

  it('a span too large to hold is rejected, naming why', async () => {
    const t = await setup();
    const trace = traceId();
    const big = spanId();
    const res = await t.json(
      jsonRequest({ 'platform.version.id': t.version.id }, [
        jsonSpan({
          traceId: trace,
          spanId: big,
          parentSpanId: spanId(),
          name: 'chat',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_100,
          attributes: { 'output.value': 'x'.repeat(400_000) },
        }),
      ]),
    );
    expect(JSON.parse(res.text).partialSuccess).toEqual({
      rejectedSpans: 1,
      errorMessage: `span ${big}: no session.id, gen_ai.conversation.id or thread_id attribute on the span, its resource or another span of its trace (a span this large is not held until one does)`,
    });
    expect(await tracesWithParkedSpans(t.org.id, [trace])).toEqual(new Set());
  });

  it('concurrent exports of a new session create it once', async () => {
    const t = await setup();
    const conv = `race-${traceId()}`;
    const exports = Array.from({ length: 4 }, () =>
      jsonRequest({ 'platform.version.id': t.version.id, 'session.id': conv }, [
        jsonSpan({
          traceId: traceId(),
          spanId: spanId(),
          name: 'turn',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'input.value': 'x' },
        }),
      ]),
    );
    const answers = await Promise.all(exports.map((e) => t.json(e)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const sessions = await t.sessionsOf(conv);
    expect(sessions).toHaveLength(1);
    expect((await t.turnsOf(sessions[0]!.id)).map((x) => x.index)).toEqual([1, 2, 3, 4]);
  });

  it('platform.test_case.id makes a test session; production sessions attach to monitors as REST-created ones do', async () => {
    const t = await setup();
    const monitor = (
      await t.api.post('/monitors', {
        productId: t.product.id,
        name: 'm',
        metricGroupIds: ['mgrp_non_empty_output'],
        samplingPercentage: 100,
      })
    ).body;
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'x', type: 'QUALITY' })).body;
    const testCase = (await t.api.post('/testCases', { testId: test.id, input: 'hello' })).body;
    const prod = `prod-${traceId()}`;
    const fromTest = `test-${traceId()}`;
    await t.json(
      jsonRequest({ 'platform.version.id': t.version.id }, [
        jsonSpan({
          traceId: traceId(),
          spanId: spanId(),
          name: 'turn',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': prod, 'input.value': 'Refund please', 'output.value': 'Done.' },
        }),
        jsonSpan({
          traceId: traceId(),
          spanId: spanId(),
          name: 'turn',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': fromTest, 'platform.test_case.id': testCase.id, 'input.value': 'hello' },
        }),
      ]),
    );
    const [p] = await t.sessionsOf(prod);
    const [q] = await t.sessionsOf(fromTest);
    expect(p).toMatchObject({ isProduction: true, testCaseId: null });
    expect(q).toMatchObject({ isProduction: false, testCaseId: testCase.id, testId: test.id });
    const results = (await t.api.get(`/monitors/${monitor.id}/results`)).body;
    expect(
      results.sessions.waiting.map((w: { sessionId: string; description: string }) => [w.sessionId, w.description]),
    ).toEqual([[p!.id, 'Refund please']]);
    expect(
      (await t.api.get('/tests', { hasTraces: true, productIds: t.product.id })).body.map((x: { id: string }) => x.id),
    ).toEqual([test.id]);
  });

  it('joins a session created through POST /sessions with the same customId', async () => {
    const t = await setup();
    const conv = `rest-${traceId()}`;
    const made = (await t.api.post('/sessions', { versionId: t.version.id, customId: conv })).body;
    await t.json(
      jsonRequest({ 'platform.version.id': t.version.id }, [
        jsonSpan({
          traceId: traceId(),
          spanId: spanId(),
          name: 'turn',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': conv, 'input.value': 'x' },
        }),
      ]),
    );
    expect((await t.sessionsOf(conv)).map((s) => s.id)).toEqual([made.id]);
    expect(await t.turnsOf(made.id)).toHaveLength(1);
  });

  it("keeps to the caller's organization: another's version and span ids are rejected, its sessions never joined", async () => {
    const t = await setup();
    const other = await setup();
    const conv = `shared-${traceId()}`;
    const theirSpan = spanId();
    await other.json(
      jsonRequest({ 'platform.version.id': other.version.id }, [
        jsonSpan({
          traceId: traceId(),
          spanId: theirSpan,
          name: 'x',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': conv },
        }),
      ]),
    );
    const res = await t.json(
      jsonRequest({}, [
        jsonSpan({
          traceId: traceId(),
          spanId: spanId(),
          name: 'x',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': `mine-${conv}`, 'platform.version.id': other.version.id },
        }),
        jsonSpan({
          traceId: traceId(),
          spanId: theirSpan,
          name: 'x',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': conv, 'platform.version.id': t.version.id },
        }),
        jsonSpan({
          traceId: traceId(),
          spanId: spanId(),
          name: 'x',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_000_010,
          attributes: { 'session.id': conv, 'platform.version.id': t.version.id },
        }),
      ]),
    );
    const answer = JSON.parse(res.text);
    expect(answer.partialSuccess.rejectedSpans).toBe(2);
    expect(answer.partialSuccess.errorMessage).toMatch(/platform\.version\.id|another organization/);
    expect(answer.partialSuccess.errorMessage).toContain(
      `span ${theirSpan}: this span id is already used by another span`,
    );
    const mine = await t.sessionsOf(conv);
    const theirs = await other.sessionsOf(conv);
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(mine[0]!.id).not.toBe(theirs[0]!.id);
    expect((await t.api.get(`/traces/trace_${theirSpan}`)).status).toBe(403);
    expect(await t.sessionsOf(`mine-${conv}`)).toEqual([]);
  });

  it('answers failures in the request encoding: 415, 400 (protobuf google.rpc.Status), 413, 401', async () => {
    const t = await setup();
    const wrongType = await t.otlp('{}', 'text/plain');
    expect(wrongType.status).toBe(415);
    expect(JSON.parse(wrongType.text)).toEqual({
      error: 'Unsupported Media Type',
      message: expect.stringContaining('application/x-protobuf or application/json'),
    });
    const badProto = await t.otlp(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]));
    expect(badProto.status).toBe(400);
    expect(badProto.headers['Content-Type']).toBe(PROTOBUF);
    expect(decodeStatus(badProto.bytes)).toEqual({
      code: 3,
      message: expect.stringContaining('not a protobuf ExportTraceServiceRequest'),
    });
    const badJson = await t.otlp('{"resourceSpans": 5}', 'application/json');
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.text)).toMatchObject({
      error: 'Bad Request',
      message: expect.stringContaining('resourceSpans'),
    });
    const badGzip = await t.otlp('not gzip', 'application/json', { 'content-encoding': 'gzip' });
    expect(JSON.parse(badGzip.text)).toMatchObject({ error: 'Bad Request', message: expect.stringContaining('gzip') });
    const many = jsonRequest(
      { 'platform.version.id': t.version.id },
      Array.from({ length: 1001 }, () =>
        jsonSpan({ traceId: traceId(), spanId: spanId(), name: 's', startMs: 1, endMs: 2, attributes: {} }),
      ),
    );
    const tooMany = await t.json(many);
    expect(tooMany.status).toBe(413);
    expect(JSON.parse(tooMany.text)).toEqual({
      error: 'Payload Too Large',
      message: 'a request may carry at most 1000 spans (this one has 1001)',
    });
    const bomb = await t.otlp(gzipSync(Buffer.alloc(6 * 1024 * 1024, 0x20)), PROTOBUF, { 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    expect(decodeStatus(bomb.bytes).message).toContain('5 MiB');
    const anonymous = await t.otlp('{}', 'application/json', {}, null);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse((await t.json({})).text)).toEqual({});
  });
});
