import type { ServerResponse } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import { drainRunQueue, runDeadLetters, startRunQueueConsumer } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { observeRequests } from '../../shared/db/client.js';
import { newTenant } from '../support/api.js';
import { echoAgent, sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { createConnection, createProduct, createVersion } from '../support/fixtures.js';

let agent: TestAgentServer;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent(echoAgent);
});
afterAll(() => agent.close());
beforeEach(() => {
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  runDeadLetters.length = 0;
  agent.requests.length = 0;
  agent.setHandler(echoAgent);
});

/** A run of `cases` single-turn cases on a version that calls the test agent. */
async function startedRun(cases: number) {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const conn = await createConnection(t.api, product.id, {
    url: `${agent.url}/chat`,
    outputMapping: { output: '$.reply' },
  });
  const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: conn.id });
  const put = await t.api.get('/storage/generate-put-presigned-url', {
    fileName: 'cases.csv',
    contentType: 'text/csv',
  });
  const rows = Array.from({ length: cases }, (_, i) => `question ${i},question ${i}`).join('\n');
  await fetch(put.body.url, {
    method: 'PUT',
    body: `input,expected_output\n${rows}\n`,
    headers: { 'content-type': 'text/csv' },
  });
  const test = (
    await t.api.post('/tests', { productId: product.id, name: 'cancel', type: 'QUALITY', uri: put.body.uri })
  ).body;
  expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
  const run = (
    await t.api.post('/runs', { versionId: version.id, testId: test.id, metricIds: ['met_non_empty_output'] })
  ).body;
  expect(run.status).toBe('PENDING');
  return { ...t, run };
}

/** Runs only the fan-out pages: every session exists and waits, its first step on the queue. */
async function fanOutOnly(): Promise<void> {
  for (;;) {
    const i = localRunQueue.messages.findIndex((m) => JSON.parse(m.body).kind === 'fanout');
    if (i < 0) return;
    const [m] = localRunQueue.messages.splice(i, 1);
    await runner({ Records: [{ messageId: m!.id, body: m!.body }] } as SQSEvent);
  }
}

/** POST /runs/{id}/cancel, with the DynamoDB requests it made, by operation. */
async function cancelCounted(t: Awaited<ReturnType<typeof startedRun>>) {
  const byOperation: Record<string, number> = {};
  const stop = observeRequests((op) => {
    byOperation[op] = (byOperation[op] ?? 0) + 1;
  });
  try {
    const res = await t.api.post(`/runs/${t.run.id}/cancel`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { body: res.body, byOperation };
  } finally {
    stop();
  }
}

const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'];
const writesOf = (ops: Record<string, number>) => WRITES.reduce((n, op) => n + (ops[op] ?? 0), 0);

describe('runs: cancelling a big run', () => {
  it('answers with a fixed few requests whatever the number of waiting sessions; a job fails them in batches, every job delivered twice', async () => {
    const small = await startedRun(5);
    await fanOutOnly();
    const few = await cancelCounted(small);

    const big = await startedRun(300);
    await fanOutOnly();
    expect(localRunQueue.messages.filter((m) => JSON.parse(m.body).kind === 'step')).toHaveLength(5 + 300);
    const many = await cancelCounted(big);

    // The request marks the run cancelled in one write, and reads what it answers: the same
    // requests for 300 waiting sessions as for 5.
    expect(many.byOperation).toEqual(few.byOperation);
    expect(writesOf(many.byOperation), JSON.stringify(many.byOperation)).toBe(1);
    // It shows the waiting sessions failed at once: none of them will start.
    expect(many.body).toMatchObject({
      status: 'CANCELLED',
      progress: { total: 300, pending: 0, running: 0, completed: 0, failed: 300 },
    });

    // The cancel jobs (a page of sessions each) and the queued first steps, each delivered twice.
    await drainRunQueue((e) => runner(e) as Promise<unknown>, { duplicate: true, concurrency: 10 });
    expect(agent.requests).toHaveLength(0);
    expect(runDeadLetters).toEqual([]);
    for (const t of [small, big]) {
      const done = (await t.api.get(`/runs/${t.run.id}`)).body;
      const total = t === small ? 5 : 300;
      expect(done).toMatchObject({
        status: 'CANCELLED',
        progress: { total, pending: 0, running: 0, completed: 0, failed: total },
      });
      const sessions = (await t.api.get('/sessions', { runIds: t.run.id, limit: 500 })).body as any[];
      expect(sessions).toHaveLength(total);
      expect(sessions.every((s) => s.status === 'FAILED' && s.stoppingReason === 'cancelled')).toBe(true);
    }
  });

  it('no agent call starts after the cancel answered; the calls under way end the run exact', async () => {
    const t = await startedRun(12);
    // The agent holds its answers: three sessions are in the middle of their call when the run is cancelled.
    const held: ServerResponse[] = [];
    agent.setHandler((req, res) => {
      held.push(res);
      void req;
    });
    const consumer = startRunQueueConsumer((e) => runner(e) as Promise<unknown>, { concurrency: 3 });
    try {
      while (agent.requests.length < 3) await new Promise((r) => setTimeout(r, 10));
      const cancelled = await t.api.post(`/runs/${t.run.id}/cancel`);
      expect(cancelled.status).toBe(200);
      const callsAtAnswer = agent.requests.length;
      expect(callsAtAnswer).toBe(3);
      for (const res of held.splice(0)) sendJson(res, 200, { reply: 'late answer' });
      agent.setHandler(echoAgent);
      await consumer.idle();
      expect(agent.requests).toHaveLength(callsAtAnswer);
    } finally {
      await consumer.stop();
    }
    const done = (await t.api.get(`/runs/${t.run.id}`)).body;
    expect(done.status).toBe('CANCELLED');
    expect(done.progress).toMatchObject({ total: 12, pending: 0, running: 0 });
    // The three calls under way either recorded their turn first or lost it to the cancel.
    expect(done.progress.completed + done.progress.failed).toBe(12);
    expect(done.progress.failed).toBeGreaterThanOrEqual(9);
  });
});
