import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import { drainRunQueue, runDeadLetters } from '../../infra/local/run-queue.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { clock } from '../../shared/domain/common/clock.js';
import { STALLED_ERROR, watchRuns as watchAll } from '../../shared/domain/runs/watchdog.js';
import { activeRuns } from '../../shared/db/run-watch.js';
import { newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';

/** The stall watchdog: lost steps are sent again, steps that keep failing end their sessions FAILED. */
let agent: TestAgentServer;
beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent((req, res) =>
    sendJson(res, 200, { reply: `echo ${(req.json as { message: string }).message}` }),
  );
});
afterAll(() => agent.close());
beforeEach(() => {
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  runDeadLetters.length = 0;
});
afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
/** The watchdog over this file's runs only: other files' runs share the table. */
const mine = new Set<string>();
const watchRuns = () => watchAll(clock.now(), (r) => mine.has(r.runId));
let now = Date.now();
const setClock = (ms: number) => {
  now = ms;
  vi.spyOn(clock, 'now').mockImplementation(() => new Date(now));
};

/** Delivers the run queue: fan-out pages always, step jobs as `steps` says (lost: acknowledged undone). */
const drain = (steps: 'run' | 'lose' | 'fail') =>
  drainRunQueue(async (event: SQSEvent) => {
    const kind = (JSON.parse(event.Records[0]!.body) as { kind: string }).kind;
    if (kind !== 'step' || steps === 'run') return runner(event);
    if (steps === 'lose') return { batchItemFailures: [] };
    throw new Error('the runner keeps failing');
  });

async function startRun(cases: number) {
  const t = await newTenant({ monthlyCredits: null });
  const product = await createProduct(t.api);
  const connection = await createConnection(t.api, product.id, {
    url: `${agent.url}/chat`,
    inputTemplate: '{"message": {{ input.user_message | dump }}}',
    outputMapping: { output: '$.reply' },
  });
  const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: connection.id });
  const csv = `input,expected_output\n${Array.from({ length: cases }, (_, i) => `q${i},a${i}`).join('\n')}\n`;
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: 'cases',
      type: 'QUALITY',
      uri: await uploadCsv(t.api, csv),
    })
  ).body;
  const run = await t.api.post('/runs', {
    versionId: version.id,
    testId: test.id,
    metricIds: ['met_non_empty_output'],
  });
  expect(run.status).toBe(201);
  mine.add(run.body.id);
  return { ...t, runId: run.body.id as string };
}

describe('the stall watchdog', () => {
  it('sends lost steps again after STALL_MINUTES, and the run completes; a finished run leaves the index', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(4);
    await drain('lose');
    expect((await t.api.get(`/runs/${t.runId}`)).body.status).toBe('RUNNING');
    expect((await watchRuns()).redelivered).toBe(0); // first look
    setClock(start + 10 * MINUTE);
    expect((await watchRuns()).redelivered).toBe(0); // not yet 15 minutes
    setClock(start + 16 * MINUTE);
    // Two passes at once (the scanner delivered twice): the steps are sent once.
    const [a, b] = await Promise.all([watchRuns(), watchRuns()]);
    expect(a.redelivered + b.redelivered).toBe(1);
    expect(localRunQueue.messages).toHaveLength(4);
    await drain('run');
    await drainLocalQueue((e) => evaluator(e) as Promise<unknown>);
    const run = (await t.api.get(`/runs/${t.runId}`)).body;
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { completed: 4, failed: 0 } });
    expect((await activeRuns()).map((r) => r.runId)).toContain(t.runId);
    expect((await watchRuns()).retired).toBeGreaterThanOrEqual(1);
    expect((await activeRuns()).map((r) => r.runId)).not.toContain(t.runId);
  });

  it('after 3 re-deliveries that change nothing, fails the unfinished sessions naming the stall, and the run finishes', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(3);
    await drain('fail');
    expect(runDeadLetters.length).toBe(3);
    await watchRuns();
    for (let round = 1; round <= 3; round++) {
      setClock(start + round * 16 * MINUTE);
      expect((await watchRuns()).redelivered, `re-delivery ${round}`).toBe(1);
      await drain('fail');
    }
    setClock(start + 4 * 16 * MINUTE);
    expect((await watchRuns()).failed).toBe(1);
    const run = (await t.api.get(`/runs/${t.runId}`)).body;
    expect(run).toMatchObject({
      status: 'FAILED',
      progress: { total: 3, completed: 0, failed: 3, pending: 0, running: 0 },
    });
    const sessions = (await t.api.get('/sessions', { runIds: t.runId })).body as { status: string; error: string }[];
    expect(sessions.map((s) => [s.status, s.error])).toEqual(Array(3).fill(['FAILED', STALLED_ERROR]));
    // A later pass changes nothing and takes it off the index.
    setClock(start + 5 * 16 * MINUTE);
    const after = await watchRuns();
    expect(after.failed + after.redelivered).toBe(0);
  });

  it('leaves a moving run alone', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(2);
    await watchRuns();
    setClock(start + 20 * MINUTE);
    await drain('run');
    // The sessions finished since the last look: it moved, nothing is sent.
    const report = await watchRuns();
    expect(report.redelivered + report.failed).toBe(0);
    expect((await t.api.get(`/runs/${t.runId}`)).body.status).toBe('COMPLETED');
  });
});
