/**
 * `npm run bench:otel` (not part of `npm test`): how fast POST /otel/v1/traces ingests spans on the
 * local runtime, against the floor of writing the same span items with BatchWriteItem.
 * 1. Ingestion: BENCH_SESSIONS conversations of BENCH_TURNS turns, each turn a trace of
 *    BENCH_SPANS_PER_TRACE spans (a root, LLM and tool children), made by the OpenTelemetry JS SDK
 *    and sent as protobuf exports of at most 1,000 spans (one export in flight at a time per
 *    client, BENCH_CLIENTS clients, as BatchSpanProcessors would). Prints spans per second.
 * 2. Floor: the stored span items read back and written again under other keys with
 *    BatchWriteItem (25 per call, 8 calls in flight) on the same DynamoDB Local. Prints spans per
 *    second, and the ratio ingestion / floor (1.0 would be ingestion as cheap as bare writes; it
 *    also creates sessions, turns and trace links, and checks every span id first).
 * Environment: BENCH_SESSIONS (50), BENCH_TURNS (4), BENCH_SPANS_PER_TRACE (10), BENCH_CLIENTS (2).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { startLocalRuntime } from '../infra/local/runtime.js';
import { freePort } from '../infra/local/services.js';
import { benchClient } from './http.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
const TURNS = Number(process.env.BENCH_TURNS ?? 4);
const SPANS_PER_TRACE = Math.max(2, Number(process.env.BENCH_SPANS_PER_TRACE ?? 10));
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2);
const EXPORT_SPANS = 1000;

const runtime = await startLocalRuntime({
  port: await freePort(),
  inMemory: true,
  dataDir: mkdtempSync(join(tmpdir(), 'evp-bench-otel-')),
  scanIntervalSeconds: 0,
  quiet: true,
});

const http = benchClient(runtime.url, runtime.demoApiKey);

/** The conversations, made by the SDK: turn k of every session, then turn k + 1 (as traffic arrives). */
async function makeSpans(versionId: string): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bench-bot', 'platform.version.id': versionId }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('bench');
  const start = Date.now() - 3_600_000;
  for (let turn = 0; turn < TURNS; turn++) {
    for (let s = 0; s < SESSIONS; s++) {
      const t0 = start + (turn * SESSIONS + s) * 1000;
      const root = tracer.startSpan('invoke_agent bench-bot', {
        startTime: new Date(t0),
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'session.id': `bench-${s}`,
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: `question ${turn} of conversation ${s}` }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: `answer ${turn}` }] },
          ]),
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 20,
        },
      });
      const ctx = trace.setSpan(context.active(), root);
      for (let c = 1; c < SPANS_PER_TRACE; c++) {
        const tool = c % 3 === 0;
        const child = tracer.startSpan(
          tool ? 'execute_tool search' : 'chat gpt-4.1-mini',
          {
            startTime: new Date(t0 + c * 10),
            attributes: tool
              ? {
                  'gen_ai.operation.name': 'execute_tool',
                  'gen_ai.tool.name': 'search',
                  'gen_ai.tool.call.result': 'found 3 documents',
                }
              : {
                  'gen_ai.operation.name': 'chat',
                  'gen_ai.request.model': 'gpt-4.1-mini',
                  'gen_ai.usage.input_tokens': 50,
                },
          },
          ctx,
        );
        child.end(new Date(t0 + c * 10 + 8));
      }
      root.end(new Date(t0 + SPANS_PER_TRACE * 10 + 50));
    }
  }
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

try {
  const product = await http('POST', '/products', { name: 'bench otel' });
  const version = await http('POST', '/versions', { productId: product.id, name: 'v1' });
  const spans = await makeSpans(version.id);
  // Exports as a BatchSpanProcessor makes them: in order of ending, at most 1,000 spans each.
  const bodies: Buffer[] = [];
  for (let i = 0; i < spans.length; i += EXPORT_SPANS)
    bodies.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans.slice(i, i + EXPORT_SPANS))!));
  console.log(
    `ingestion: ${spans.length} spans (${SESSIONS} sessions × ${TURNS} turns × ${SPANS_PER_TRACE} spans) in ${bodies.length} protobuf exports, ${CLIENTS} clients`,
  );

  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await fetch(`${runtime.url}/otel/v1/traces`, {
          method: 'POST',
          headers: { authorization: `Bearer ${runtime.demoApiKey}`, 'content-type': 'application/x-protobuf' },
          body,
        });
        const answer = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || answer.length > 0)
          throw new Error(`export answered ${res.status} (${answer.length} bytes): not a full success`);
      }
    }),
  );
  const ingestMs = Date.now() - started;
  const ingestRate = spans.length / (ingestMs / 1000);
  console.log(`  ${(ingestMs / 1000).toFixed(1)} s: ${ingestRate.toFixed(0)} spans/s`);

  // Check the result: every session with its turns, every span stored.
  const { queryIndex } = await import('../shared/db/query.js');
  const { keys } = await import('../shared/db/keys.js');
  const { batchPut } = await import('../shared/db/batch.js');
  const sessions = await http('GET', `/sessions?versionIds=${version.id}&limit=1000`);
  if (sessions.length !== SESSIONS || sessions.some((s: { turnCount: number }) => s.turnCount !== TURNS))
    throw new Error('the sessions or their turns are not all there');
  const items = (
    await Promise.all(sessions.map((s: { id: string }) => queryIndex('gsi1', keys.spanBySessionPartition(s.id))))
  ).flat();
  if (items.length !== spans.length) throw new Error(`${items.length} span items stored, ${spans.length} sent`);
  console.log(`  stored: ${SESSIONS} sessions, ${SESSIONS * TURNS} turns, ${items.length} spans`);

  console.log(`floor: the same ${items.length} span items written with BatchWriteItem (25 per call, 8 in flight)`);
  const copies = items.map((i) => ({ ...i, pk: `BENCH#${String(i.pk)}` }));
  const floorStarted = Date.now();
  await batchPut(copies, 8);
  const floorMs = Date.now() - floorStarted;
  const floorRate = items.length / (floorMs / 1000);
  console.log(`  ${(floorMs / 1000).toFixed(1)} s: ${floorRate.toFixed(0)} spans/s`);

  console.log('');
  console.log(`ingested spans/s / BatchWriteItem spans/s = ${(ingestRate / floorRate).toFixed(3)}`);
} finally {
  await runtime.stop();
}
