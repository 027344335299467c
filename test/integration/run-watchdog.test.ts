import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { localQueue, localRunQueue, localWebhookQueue, type LocalQueueMessage } from '../../infra/local/queues.js';
import { drainRunQueue, runDeadLetters } from '../../infra/local/run-queue.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { processRunBatch } from '../../shared/domain/runs/jobs.js';
import { clock } from '../../shared/domain/common/clock.js';
import { STALLED_ERROR, watchRuns as watchAll, type WatchReport } from '../../shared/domain/runs/watchdog.js';
import { activeRuns } from '../../shared/db/stall-watch.js';
import { newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { failCommands, type DocCommand } from '../support/doc-mock.js';

/**
 * The stall watchdog of runs: lost steps are sent again, steps that keep failing end their
 * sessions FAILED and the run finishes once; a run that moves, a cancelled or a finished one is
 * never touched; a pass delivered twice acts once.
 */
let agent: TestAgentServer;
beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent((req, res) =>
    sendJson(res, 200, { reply: `echo ${(req.json as { message: string }).message}` }),
  );
});
afterAll(() => agent.close());
beforeEach(() => {
  mine.clear();
  held.length = 0;
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  localWebhookQueue.messages.length = 0;
  runDeadLetters.length = 0;
  agent.requests.length = 0;
});
afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
/** The watchdog over this test's runs only: other tests' and files' runs share the table. */
const mine = new Set<string>();
const watchRuns = () => watchAll(clock.now(), (r) => mine.has(r.runId));
const acted = (r: WatchReport) => r.redelivered + r.failed;
let now = Date.now();
const setClock = (ms: number) => {
  now = ms;
  vi.spyOn(clock, 'now').mockImplementation(() => new Date(now));
};

type Job = { kind: string; seq?: number };
/**
 * What becomes of a delivered run job: `run` it; `short` run it with 8 s left in the invocation
 * (enough for a call, too little to close the session too: its close goes on the queue as its own job); `lose` it (acknowledged, not done);
 * `fail` it (the runner throws, on every receive: DLQ); `hold` it aside (see `held`).
 */
type Fate = 'run' | 'short' | 'lose' | 'fail' | 'hold';
const held: LocalQueueMessage[] = [];
/** Delivers the run queue until it is empty; fan-out pages always run. */
const drain = (fate: Fate | ((job: Job) => Fate)) =>
  drainRunQueue(async (event: SQSEvent) => {
    const record = event.Records[0]!;
    const job = JSON.parse(record.body) as Job;
    const f = job.kind === 'fanout' ? 'run' : typeof fate === 'function' ? fate(job) : fate;
    if (f === 'fail') throw new Error('the runner keeps failing');
    if (f === 'lose') return { batchItemFailures: [] };
    if (f === 'hold') {
      held.push({ id: record.messageId, body: record.body, receiveCount: 0, visibleAt: 0 });
      return { batchItemFailures: [] };
    }
    return processRunBatch(event, f === 'short' ? { getRemainingTimeInMillis: () => 8000 } : undefined);
  });
/** Puts the held jobs back on the run queue. */
const release = () => localRunQueue.messages.push(...held.splice(0));
const queuedSteps = () => localRunQueue.messages.filter((m) => JSON.parse(m.body).kind === 'step').length;

async function startRun(cases: number, options: { initialization?: boolean; metricIds?: string[] } = {}) {
  const t = await newTenant({ monthlyCredits: null });
  const product = await createProduct(t.api);
  const connection = (type: string) =>
    createConnection(t.api, product.id, {
      type,
      url: `${agent.url}/${type.toLowerCase()}`,
      // INITIALIZATION has no input yet: its placeholder prints nothing.
      inputTemplate:
        type === 'INITIALIZATION'
          ? '{"message": "hello{{ input.user_message }}"}'
          : '{"message": {{ input.user_message | dump }}}',
      outputMapping: { output: '$.reply' },
    });
  const version = await createVersion(t.api, product.id, {
    conversationEndpointConnectionId: (await connection('CONVERSATION')).id,
    ...(options.initialization ? { initializationEndpointConnectionId: (await connection('INITIALIZATION')).id } : {}),
  });
  const csv = `input,expected_output\n${Array.from({ length: cases }, (_, i) => `q${i},a${i}`).join('\n')}\n`;
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: 'cases',
      type: 'QUALITY',
      uri: await uploadCsv(t.api, csv),
    })
  ).body;
  const hook = await t.api.post('/webhooks', { url: `${agent.url}/hook`, events: ['run.completed', 'run.failed'] });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const run = await t.api.post('/runs', {
    versionId: version.id,
    testId: test.id,
    metricIds: options.metricIds ?? ['met_non_empty_output'],
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  mine.add(run.body.id);
  const runId = run.body.id as string;
  return {
    ...t,
    runId,
    run: async () => (await t.api.get(`/runs/${runId}`)).body,
    sessions: async () =>
      (await t.api.get('/sessions', { runIds: runId })).body as { id: string; status: string; error: string | null }[],
    /** The run's `run.*` events, as written for the webhook. */
    events: async () =>
      ((await t.api.get(`/webhooks/${hook.body.id}/deliveries`)).body as { type: string }[]).map((d) => d.type),
  };
}

describe('the stall watchdog of runs', () => {
  it('sends lost steps again after STALL_MINUTES (once, for two passes at once); the run completes and leaves the index', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(4);
    await drain('lose');
    expect((await t.run()).status).toBe('RUNNING');
    expect(acted(await watchRuns())).toBe(0); // first look
    setClock(start + 10 * MINUTE);
    expect(acted(await watchRuns())).toBe(0); // not yet 15 minutes
    setClock(start + 16 * MINUTE);
    // The scanner delivered twice: the steps are sent once.
    const [a, b] = await Promise.all([watchRuns(), watchRuns()]);
    expect(a.redelivered + b.redelivered).toBe(1);
    expect(queuedSteps()).toBe(4);
    await drain('run');
    expect(await t.run()).toMatchObject({ status: 'COMPLETED', progress: { completed: 4, failed: 0 } });
    expect(await t.events()).toEqual(['run.completed']);
    expect((await activeRuns()).map((r) => r.runId)).toContain(t.runId);
    expect((await watchRuns()).retired).toBe(1);
    expect((await activeRuns()).map((r) => r.runId)).not.toContain(t.runId);
  });

  it('sends again the lost closing step of a session whose conversation ended', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(2);
    // The turns are recorded, the closes go on the queue as their own jobs, and are lost.
    await drain((job) => (job.seq === 0 ? 'short' : 'lose'));
    expect(await t.run()).toMatchObject({ status: 'RUNNING', progress: { running: 2, completed: 0 } });
    await watchRuns();
    setClock(start + 16 * MINUTE);
    expect((await watchRuns()).redelivered).toBe(1);
    expect(queuedSteps()).toBe(2);
    await drain('run');
    expect(await t.run()).toMatchObject({ status: 'COMPLETED', progress: { completed: 2, failed: 0 } });
    expect(agent.requests).toHaveLength(2); // the closes call no agent
  });

  it('after 3 re-deliveries that change nothing, fails what is left naming the stall; the run finishes as the rule says, its event once', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(3);
    // One session completes; the others' steps fail on every receive, each time they are sent.
    let first = true;
    const oneThenFail = () => {
      const fate = first ? 'run' : 'fail';
      first = false;
      return fate;
    };
    await drain(oneThenFail);
    expect(runDeadLetters.length).toBe(2);
    expect(await t.run()).toMatchObject({ status: 'RUNNING', progress: { completed: 1 } });
    await watchRuns();
    for (let round = 1; round <= 3; round++) {
      setClock(start + round * 16 * MINUTE);
      expect((await watchRuns()).redelivered, `re-delivery ${round}`).toBe(1);
      expect(queuedSteps()).toBe(2);
      await drain('fail');
    }
    setClock(start + 4 * 16 * MINUTE);
    // Two passes at once: one fails the sessions and finishes the run.
    const [a, b] = await Promise.all([watchRuns(), watchRuns()]);
    expect([a.failed + b.failed, a.redelivered + b.redelivered]).toEqual([1, 0]);
    expect(await t.run()).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 3, completed: 1, failed: 2, pending: 0, running: 0 },
    });
    const sessions = await t.sessions();
    expect(sessions.map((s) => [s.status, s.error]).sort()).toEqual([
      ['COMPLETED', null],
      ['FAILED', STALLED_ERROR],
      ['FAILED', STALLED_ERROR],
    ]);
    expect(await t.events()).toEqual(['run.completed']);
    // A later pass changes nothing and takes it off the index.
    setClock(start + 5 * 16 * MINUTE);
    const after = await watchRuns();
    expect([acted(after), after.retired]).toEqual([0, 1]);
    expect(await t.events()).toEqual(['run.completed']);
  });

  it('ends the scoring of a session stuck in it: its pending evaluations FAILED naming the stall, the session counted', async () => {
    const start = Date.now();
    setClock(start);
    // A judged metric: scored after the close, by the session's step.
    const t = await startRun(1, { metricIds: ['met_answer_relevancy'] });
    await drain((job) => (job.seq === 0 ? 'short' : 'hold'));
    // The close is written (the session COMPLETED, its evaluation PENDING), then storage fails while scoring it.
    const close = held.splice(0);
    expect(close).toHaveLength(1);
    const restore = failCommands(
      (c: DocCommand) => c instanceof GetCommand && String(c.input.Key?.sk).startsWith('EVAL#'),
      () => new Error('Throughput exceeds the current capacity'),
    );
    try {
      const out = await processRunBatch({ Records: [{ messageId: 'close', body: close[0]!.body }] } as SQSEvent);
      expect(out.batchItemFailures).toHaveLength(1);
    } finally {
      restore();
    }
    expect(await t.run()).toMatchObject({ status: 'RUNNING', progress: { running: 1, completed: 0 } });
    await watchRuns();
    for (let round = 1; round <= 3; round++) {
      setClock(start + round * 16 * MINUTE);
      expect((await watchRuns()).redelivered, `re-delivery ${round}`).toBe(1);
      expect(queuedSteps()).toBe(1);
      await drain('lose');
    }
    setClock(start + 4 * 16 * MINUTE);
    expect((await watchRuns()).failed).toBe(1);
    const [session] = await t.sessions();
    expect(session).toMatchObject({ status: 'COMPLETED', error: null });
    const evaluations = (await t.api.get('/evaluations', { sessionIds: session!.id })).body as any[];
    expect(evaluations.map((e) => [e.status, e.error])).toEqual([['FAILED', `scoring stopped: ${STALLED_ERROR}`]]);
    expect(await t.run()).toMatchObject({ status: 'COMPLETED', progress: { completed: 1, failed: 0, running: 0 } });
    expect(await t.events()).toEqual(['run.completed']);
  });

  it('a run none of whose sessions completed ends FAILED, with run.failed', async () => {
    const start = Date.now();
    setClock(start);
    const t = await startRun(1);
    await drain('lose');
    await watchRuns();
    for (let round = 1; round <= 4; round++) {
      setClock(start + round * 16 * MINUTE);
      await watchRuns();
      await drain('lose');
    }
    expect(await t.run()).toMatchObject({ status: 'FAILED', progress: { total: 1, completed: 0, failed: 1 } });
    expect((await t.sessions()).map((s) => s.error)).toEqual([STALLED_ERROR]);
    expect(await t.events()).toEqual(['run.failed']);
  });

  it('leaves a run that moves alone: sessions counted, or a turn recorded in a conversation still going', async () => {
    const start = Date.now();
    setClock(start);
    const counted = await startRun(2);
    await watchRuns();
    setClock(start + 20 * MINUTE);
    await drain('run');
    expect(acted(await watchRuns())).toBe(0);
    expect((await counted.run()).status).toBe('COMPLETED');

    // INITIALIZATION moves the counters (the session starts); the conversation's turn, 14 minutes
    // later, does not, nor does anything else for 16 minutes: the turn is the progress.
    setClock(start);
    const talking = await startRun(2, { initialization: true });
    await drain((job) => (job.seq === 0 ? 'run' : 'hold'));
    expect(await talking.run()).toMatchObject({ progress: { running: 2 } });
    await watchRuns();
    setClock(start + 14 * MINUTE);
    release();
    await drain((job) => (job.seq === 1 ? 'short' : 'hold'));
    setClock(start + 16 * MINUTE);
    expect(acted(await watchRuns())).toBe(0);
    setClock(start + 28 * MINUTE);
    expect(acted(await watchRuns())).toBe(0); // 14 minutes after the turn
    expect(localRunQueue.messages).toHaveLength(0);
    release();
    await drain('run');
    expect(await talking.run()).toMatchObject({ status: 'COMPLETED', progress: { completed: 2 } });
    // One call per case of each run: nothing was sent again.
    expect(agent.requests.filter((r) => r.url.startsWith('/conversation'))).toHaveLength(4);
  });

  it('never touches a cancelled or a finished run: it only takes it off the index', async () => {
    const start = Date.now();
    setClock(start);
    const cancelled = await startRun(3);
    await drain('lose');
    expect((await cancelled.api.post(`/runs/${cancelled.runId}/cancel`)).status).toBe(200);
    const finished = await startRun(1);
    // The cancel job is lost too: the cancelled run's waiting sessions stay as they were.
    await drain((job) => (job.kind === 'cancel' ? 'lose' : 'run'));
    expect((await finished.run()).status).toBe('COMPLETED');
    for (let round = 0; round <= 4; round++) {
      setClock(start + round * 16 * MINUTE);
      const report = await watchRuns();
      expect(acted(report), `pass ${round}`).toBe(0);
      expect(report.retired).toBe(round === 0 ? 2 : 0);
    }
    expect(queuedSteps()).toBe(0);
    expect((await cancelled.run()).status).toBe('CANCELLED');
    expect(await cancelled.events()).toEqual([]);
    expect(await finished.events()).toEqual(['run.completed']);
  });
});
