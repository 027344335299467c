import { afterAll, describe, expect, it, inject } from 'vitest';
import { diag, DiagLogLevel, type Attributes } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { genAiTurn } from '../support/otel.js';
import { jsonClient } from '../support/http-client.js';

/**
 * A real client: the OpenTelemetry JS SDK with its OTLP exporters (protobuf and JSON) pointed at
 * `npm start`, exactly as a team would configure it (endpoint + Authorization header).
 */
const base = inject('serverUrl');
const key = inject('demoApiKey');
const endpoint = `${base}/otel/v1/traces`;
const headers = { Authorization: `Bearer ${key}` };

const http = jsonClient(base, key);

// What the exporters tell their users (a partial success is logged through diag).
const warnings: string[] = [];
diag.setLogger(
  {
    error: (...a) => warnings.push(a.join(' ')),
    warn: (...a) => warnings.push(a.join(' ')),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  },
  DiagLogLevel.WARN,
);
afterAll(() => diag.disable());

/** A provider exporting through `exporter` in batches (as in production), keeping a copy of what it sent. */
function pipeline(exporter: SpanExporter, resource: Attributes) {
  const sent = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [
      new BatchSpanProcessor({ exporter, scheduledDelayMillis: 60_000 }),
      new SimpleSpanProcessor({ exporter: sent }),
    ],
  });
  return {
    tracer: provider.getTracer('support-bot', '1.0.0'),
    flush: async () => {
      await provider.forceFlush();
      return sent.getFinishedSpans();
    },
    shutdown: () => provider.shutdown(),
  };
}

function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('OpenTelemetry SDK → POST /otel/v1/traces on the local server', () => {
  for (const [label, Exporter] of [
    ['protobuf (exporter-trace-otlp-proto)', ProtoExporter],
    ['JSON (exporter-trace-otlp-http)', JsonExporter],
  ] as const) {
    it(`${label}: a two-turn conversation with a tool call becomes a session, two turns, typed spans with parents, and a monitor score; a resent export changes nothing`, async () => {
      const product = (await http('POST', '/products', { name: `otel bot ${label}` })).body;
      const version = (await http('POST', '/versions', { productId: product.id, name: 'v1' })).body;
      const monitor = (
        await http('POST', '/monitors', {
          productId: product.id,
          name: 'otel quality',
          metricGroupIds: ['mgrp_non_empty_output'],
          samplingPercentage: 100,
        })
      ).body;
      const exporter = new Exporter({ url: endpoint, headers });
      const app = pipeline(exporter, { 'service.name': 'support-bot', 'platform.version.id': version.id });
      const conv = `conv-${Date.now()}-${label.length}`;
      const now = Date.now();
      genAiTurn(
        app.tracer,
        {
          session: conv,
          input: 'Where is my order 42?',
          output: 'Order 42 ships today.',
          tool: { name: 'lookup_order', result: '{"status":"shipped"}' },
          usage: { input: 31, output: 9 },
        },
        now - 4000,
      );
      genAiTurn(
        app.tracer,
        {
          session: conv,
          input: 'Thanks! Can I change the address?',
          output: 'Yes, until it ships.',
          usage: { input: 44, output: 7 },
        },
        now - 2000,
      );
      const sent = await app.flush();
      expect(sent).toHaveLength(5);

      const sessions = await until(
        'the session',
        async () => (await http('GET', `/sessions?customIds=${encodeURIComponent(conv)}`)).body,
        (s: any[]) => s.length > 0,
      );
      expect(sessions).toHaveLength(1);
      const session = sessions[0];
      expect(session).toMatchObject({ customId: conv, versionId: version.id, isProduction: true, status: 'PENDING' });
      const turns = (await http('GET', `/inferenceResults?sessionIds=${session.id}`)).body;
      expect(
        turns.map((t: any) => [t.index, t.input, t.output, t.latencyMs, t.usage.inputTokens, t.usage.outputTokens]),
      ).toEqual([
        [1, 'Where is my order 42?', 'Order 42 ships today.', 1000, 31, 9],
        [2, 'Thanks! Can I change the address?', 'Yes, until it ships.', 1000, 44, 7],
      ]);
      const spans = (await http('GET', `/traces?sessionIds=${session.id}`)).body;
      const byId = new Map(spans.map((s: any) => [s.id, s]));
      expect(
        spans.map((s: any) => [
          s.name,
          s.type,
          s.inferenceResultId === turns[0].id ? 1 : 2,
          s.parentTraceId === null ? null : (byId.get(s.parentTraceId) as any)?.type,
        ]),
      ).toEqual([
        ['invoke_agent support-bot', 'AGENT', 1, null],
        ['chat gpt-4.1-mini', 'GENERATION', 1, 'AGENT'],
        ['execute_tool lookup_order', 'TOOL', 1, 'AGENT'],
        ['invoke_agent support-bot', 'AGENT', 2, null],
        ['chat gpt-4.1-mini', 'GENERATION', 2, 'AGENT'],
      ]);
      const sentIds = sent.map((s) => `trace_${s.spanContext().spanId}`).sort();
      expect(spans.map((s: any) => s.id).sort()).toEqual(sentIds);

      // The same export again (an exporter retry): nothing changes.
      const retry = await exportOnce(new Exporter({ url: endpoint, headers }), sent);
      expect(retry.code).toBe(ExportResultCode.SUCCESS);
      expect((await http('GET', `/sessions?customIds=${encodeURIComponent(conv)}`)).body).toEqual(sessions);
      expect((await http('GET', `/inferenceResults?sessionIds=${session.id}`)).body).toEqual(turns);
      expect((await http('GET', `/traces?sessionIds=${session.id}`)).body).toEqual(spans);

      // The conversation ends; the monitor scores it (non_empty_output, in process).
      expect((await http('PATCH', `/sessions/${session.id}`, { status: 'COMPLETED' })).status).toBe(200);
      const evaluations = await until(
        "the monitor's evaluation",
        async () => (await http('GET', `/evaluations?sessionIds=${session.id}`)).body,
        (e: any[]) => e.some((x) => x.monitorId === monitor.id && x.status === 'SUCCESS'),
      );
      expect(evaluations.find((x: any) => x.monitorId === monitor.id)).toMatchObject({
        metricName: 'non_empty_output',
        score: 1,
      });
      const results = await until(
        'the monitor results',
        async () => (await http('GET', `/monitors/${monitor.id}/results?days=1`)).body,
        (r: any) => r.metrics[0].headline.scoredSessions === 1,
      );
      expect(results.metrics[0].headline.score).toBe(1);
      expect(results.sessions.scored.map((s: any) => [s.sessionId, s.description])).toEqual([
        [session.id, 'Where is my order 42?'],
      ]);
      await app.shutdown();
    });
  }

  it('a batch with one span lacking platform.version.id is partly accepted: the others are stored, the exporter is told', async () => {
    const product = (await http('POST', '/products', { name: 'otel partial' })).body;
    const version = (await http('POST', '/versions', { productId: product.id, name: 'v1' })).body;
    const conv = `partial-${Date.now()}`;
    const good = pipeline(new InMemorySpanExporter(), { 'platform.version.id': version.id });
    const bad = pipeline(new InMemorySpanExporter(), { 'service.name': 'misconfigured' });
    genAiTurn(good.tracer, { session: conv, input: 'Hello', output: 'Hi!' }, Date.now() - 1000);
    bad.tracer.startSpan('stray', { attributes: { 'session.id': conv } }).end();
    const spans = [...(await good.flush()), ...(await bad.flush())];
    expect(spans).toHaveLength(3);
    warnings.length = 0;
    const result = await exportOnce(new ProtoExporter({ url: endpoint, headers }), spans);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(warnings.join('\n')).toMatch(/Partial Success.*"rejectedSpans":"?1"?.*no platform\.version\.id/);
    const [session] = (await http('GET', `/sessions?customIds=${conv}`)).body;
    const stored = (await http('GET', `/traces?sessionIds=${session.id}`)).body;
    expect(stored.map((s: any) => s.name)).toEqual(['invoke_agent support-bot', 'chat gpt-4.1-mini']);
    const stray = spans.find((s) => s.name === 'stray')!;
    expect((await http('GET', `/traces/trace_${stray.spanContext().spanId}`)).status).toBe(404);
  });
});
