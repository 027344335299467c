import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import { runDeadLetters, startRunQueueConsumer } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { reserveRateSlot } from '../../shared/db/rate-limits.js';
import { newTenant } from '../support/api.js';
import { echoAgent, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { createConnection, createProduct, createVersion } from '../support/fixtures.js';

let n = 0;
const connectionId = () => `econ_slots_${Date.now()}_${++n}`;

/** How many of the sorted `starts` the busiest window of `windowMs` holds. */
function busiestWindow(starts: number[], windowMs = 60_000): number {
  let busiest = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[j]! < starts[i]! - windowMs + 1) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

describe('rate-limit slots (reserved, back to back)', () => {
  it('many callers at once get distinct slots one interval apart, and those beyond reach go back with when to ask', async () => {
    const id = connectionId();
    const t0 = 1_800_000_000_000;
    const asks = await Promise.all(
      Array.from({ length: 12 }, () => reserveRateSlot(id, 600, t0, { leadMs: 50, horizonMs: 1_000 })),
    );
    const slots = asks.flatMap((a) => (a.ok ? [a.at] : [])).sort((a, b) => a - b);
    // 600 a minute: one slot every 100 ms from t0 + 50 (the lead) to the horizon, t0 + 1 s.
    expect(slots).toEqual(Array.from({ length: 10 }, (_, i) => t0 + 50 + 100 * i));
    const refused = asks.filter((a) => !a.ok);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.ok === false && r.retryAt).toBeGreaterThan(t0);
    // Idle time banks nothing: a minute later the next caller gets the next moment, and the one after it waits an interval.
    const later = await reserveRateSlot(id, 600, t0 + 60_000, { leadMs: 0, horizonMs: 1_000 });
    expect(later).toEqual({ ok: true, at: t0 + 60_000 });
    expect(await reserveRateSlot(id, 600, t0 + 60_000, { leadMs: 0, horizonMs: 1_000 })).toEqual({
      ok: true,
      at: t0 + 60_100,
    });
  });

  it('a saturated connection: its whole rate once going, and never more than the limit in any 60-second window', async () => {
    // 25 workers on a 120-a-minute connection for 150 s of the connection's clock (moved by the
    // test, not waited for): each asks, waits for its slot, calls for 50 ms, asks again; a worker
    // sent back asks again when told.
    const id = connectionId();
    const rate = 120;
    const t0 = 1_900_000_000_000;
    const end = t0 + 150_000;
    const starts: number[] = [];
    const next = Array.from({ length: 25 }, (_, i) => t0 + i);
    for (;;) {
      const w = next.indexOf(Math.min(...next));
      const now = next[w]!;
      if (now >= end) break;
      const slot = await reserveRateSlot(id, rate, now, { leadMs: 20, horizonMs: 5_000 });
      if (slot.ok) {
        expect(slot.at).toBeGreaterThanOrEqual(now);
        starts.push(slot.at);
        next[w] = slot.at + 50;
      } else next[w] = Math.max(now + 1, slot.retryAt);
    }
    starts.sort((a, b) => a - b);
    const gaps = starts.slice(1).map((s, i) => s - starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(60_000 / rate);
    expect(busiestWindow(starts)).toBeLessThanOrEqual(rate);
    expect(busiestWindow(starts)).toBe(rate);
    // Once going (from the first start to the last), the achieved rate is the limit.
    const achieved = ((starts.length - 1) / (starts[starts.length - 1]! - starts[0]!)) * 60_000;
    expect(achieved).toBeGreaterThanOrEqual(0.95 * rate);
    expect(achieved).toBeLessThanOrEqual(rate);
  });
});

describe('a run on a rate-limited connection', () => {
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
  });

  async function limitedRun(cases: number, rateLimit: number) {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const conn = await createConnection(t.api, product.id, {
      url: `${agent.url}/chat`,
      outputMapping: { output: '$.reply' },
      rateLimit,
    });
    const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: conn.id });
    const put = await t.api.get('/storage/generate-put-presigned-url', { fileName: 'c.csv', contentType: 'text/csv' });
    const rows = Array.from({ length: cases }, (_, i) => `q${i},q${i}`).join('\n');
    await fetch(put.body.url, {
      method: 'PUT',
      body: `input,expected_output\n${rows}\n`,
      headers: { 'content-type': 'text/csv' },
    });
    const test = (await t.api.post('/tests', { productId: product.id, name: 'rl', type: 'QUALITY', uri: put.body.uri }))
      .body;
    const run = (
      await t.api.post('/runs', { versionId: version.id, testId: test.id, metricIds: ['met_non_empty_output'] })
    ).body;
    return { ...t, run };
  }

  /** The run queue's consumer (as many jobs at once as `concurrency`), noting each job it delivers. */
  function consume(concurrency: number) {
    const delivered: { kind: string; seq?: number }[] = [];
    const consumer = startRunQueueConsumer(
      (e) => {
        for (const r of e.Records) delivered.push(JSON.parse(r.body));
        return runner(e) as Promise<unknown>;
      },
      { concurrency },
    );
    return { delivered, consumer };
  }

  it('each call waits for its slot in its job and is woken then: no job goes back on the queue to poll', async () => {
    const t = await limitedRun(6, 600);
    const { delivered, consumer } = consume(10);
    try {
      await consumer.idle();
      while (localRunQueue.messages.length) await consumer.idle();
    } finally {
      await consumer.stop();
    }
    expect((await t.api.get(`/runs/${t.run.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 6, failed: 0 },
    });
    expect(agent.requests).toHaveLength(6);
    // One step job per case (its call, close and score), none requeued for want of a slot.
    expect(delivered.filter((j) => j.kind === 'step')).toHaveLength(6);
  });

  it('a call waiting for its slot when the run is cancelled does not start', async () => {
    // 30 a minute: the first call goes at once, the next ones wait 2 s, 4 s, … in their jobs.
    const t = await limitedRun(4, 30);
    const { consumer } = consume(10);
    try {
      while (agent.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
      expect((await t.api.post(`/runs/${t.run.id}/cancel`)).status).toBe(200);
      const callsAtAnswer = agent.requests.length;
      while (localRunQueue.messages.length || !(await isFinal(t))) await consumer.idle();
      expect(agent.requests).toHaveLength(callsAtAnswer);
    } finally {
      await consumer.stop();
    }
    const done = (await t.api.get(`/runs/${t.run.id}`)).body;
    expect(done).toMatchObject({ status: 'CANCELLED', progress: { total: 4, pending: 0, running: 0 } });
    expect(done.progress.failed).toBeGreaterThanOrEqual(3);
  });

  async function isFinal(t: Awaited<ReturnType<typeof limitedRun>>) {
    const p = (await t.api.get(`/runs/${t.run.id}`)).body.progress;
    return p.running === 0 && p.pending === 0;
  }
});
