import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { localGenerationQueue, localWebhookQueue } from '../../infra/local/queues.js';
import { drainRunQueue, generationDeadLetters } from '../../infra/local/run-queue.js';
import { handler as generator } from '../../functions/jobs/generator.js';
import { claimStep } from '../../shared/db/generation.js';
import { generatingTests } from '../../shared/db/stall-watch.js';
import { clock } from '../../shared/domain/common/clock.js';
import { STALLED_ERROR } from '../../shared/domain/common/stall.js';
import { watchGenerations as watchAll, type GenerationWatchReport } from '../../shared/domain/generation/watchdog.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { newTenant } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';
import { generatorAnswer, startLlmStub, type LlmStub } from '../support/llm-server.js';

/**
 * The stall watchdog of generating tests: a lost step is sent again, a step that keeps failing
 * ends the test FAILED once; a generation that moves, a cancelled or a finished test is never
 * touched; a pass delivered twice acts once.
 */
let llm: LlmStub;
beforeAll(async () => {
  // The webhook endpoint (the stub, on loopback) records the events.
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  llm = await startLlmStub(generatorAnswer);
});
afterAll(async () => {
  setLlmConfig({ baseUrl: undefined });
  await llm.close();
});
beforeEach(() => {
  mine.clear();
  localGenerationQueue.messages.length = 0;
  localWebhookQueue.messages.length = 0;
  generationDeadLetters.length = 0;
  llm.requests.length = 0;
  llm.setHandler(generatorAnswer);
  setLlmConfig({ baseUrl: llm.url, timeoutMs: 2000, backoffMs: 10, maxAttempts: 2 });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
/** The watchdog over this test's generations only: other tests' and files' share the table. */
const mine = new Set<string>();
const watch = () => watchAll(clock.now(), (e) => mine.has(e.testId));
const acted = (r: GenerationWatchReport) => r.redelivered + r.failed;
let now = Date.now();
const setClock = (ms: number) => {
  now = ms;
  vi.spyOn(clock, 'now').mockImplementation(() => new Date(now));
};

const queue = { queue: localGenerationQueue, deadLetters: generationDeadLetters, now: () => Date.now() };
/** Delivers the generation queue until it is empty: `run` each step, or `fail` it (the generator throws, on every receive: DLQ). */
const drain = (fate: 'run' | 'fail' = 'run') =>
  drainRunQueue(
    async (e: SQSEvent) => {
      if (fate === 'fail') throw new Error('the generator keeps failing');
      return generator(e) as Promise<unknown>;
    },
    { queue },
  );
/** Loses every step job waiting on the queue (acknowledged, never done). */
const lose = () => {
  localGenerationQueue.messages.length = 0;
};
/** Runs the first waiting step job alone. */
async function runOneStep(): Promise<void> {
  const [m] = localGenerationQueue.messages.splice(0, 1);
  expect(m).toBeDefined();
  await generator({ Records: [{ messageId: m!.id, body: m!.body }] } as unknown as SQSEvent);
}

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api, { description: 'Answers billing questions of Acme customers' });
  const hook = await t.api.post('/webhooks', { url: `${llm.url}/hook`, events: ['test.generated', 'test.failed'] });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const create = async (maxTestCases: number) => {
    const res = await t.api.post('/tests', {
      productId: product.id,
      name: 'generated',
      type: 'RED_TEAMING',
      variants: ['misuse'],
      maxTestCases,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    mine.add(res.body.id);
    return res.body.id as string;
  };
  return {
    ...t,
    create,
    get: async (id: string) => (await t.api.get(`/tests/${id}`)).body,
    credits: async () => {
      const org = (await t.api.get('/organization')).body;
      return { spent: org.spentCredits as number, pending: org.pendingCredits as number };
    },
    /** The tests' `test.*` events, as written for the webhook. */
    events: async () =>
      ((await t.api.get(`/webhooks/${hook.body.id}/deliveries`)).body as { type: string }[]).map((d) => d.type),
  };
}

const indexed = async (id: string) => (await generatingTests()).some((e) => e.testId === id);

describe('the stall watchdog of generating tests', () => {
  it('sends a lost step again after STALL_MINUTES (once, for two passes at once); the test succeeds and leaves the index', async () => {
    const start = Date.now();
    setClock(start);
    const t = await setup();
    const id = await t.create(3);
    lose();
    expect(await indexed(id)).toBe(true);
    expect(acted(await watch())).toBe(0); // first look
    setClock(start + 10 * MINUTE);
    expect(acted(await watch())).toBe(0); // not yet 15 minutes
    setClock(start + 16 * MINUTE);
    const [a, b] = await Promise.all([watch(), watch()]);
    expect(a.redelivered + b.redelivered).toBe(1);
    expect(localGenerationQueue.messages).toHaveLength(1);
    await drain();
    expect(await t.get(id)).toMatchObject({ status: 'SUCCESS', testCaseCount: 3, error: null });
    expect(llm.requests).toHaveLength(1);
    expect(await t.events()).toEqual(['test.generated']);
    expect((await watch()).retired).toBe(1);
    expect(await indexed(id)).toBe(false);
  });

  it('after 3 re-deliveries that change nothing, fails the test naming the stall, its event once, its reservation released', async () => {
    const start = Date.now();
    setClock(start);
    const t = await setup();
    const id = await t.create(3);
    // A worker took step 0 and reserved its credit, then died (its lease has run out).
    expect(
      await claimStep(t.org.id, id, { seq: 1, step: 0, status: 'PENDING' }, start, 0, {
        cycle: new Date(start).toISOString().slice(0, 7),
        amount: 1,
        limit: 1000,
      }),
    ).toBe('claimed');
    expect(await t.credits()).toEqual({ spent: 0, pending: 1 });
    await drain('fail');
    expect(generationDeadLetters).toHaveLength(1);
    await watch();
    for (let round = 1; round <= 3; round++) {
      setClock(start + round * 16 * MINUTE);
      expect((await watch()).redelivered, `re-delivery ${round}`).toBe(1);
      expect(localGenerationQueue.messages).toHaveLength(1);
      await drain('fail');
    }
    setClock(start + 4 * 16 * MINUTE);
    const [a, b] = await Promise.all([watch(), watch()]);
    expect([a.failed + b.failed, a.redelivered + b.redelivered]).toEqual([1, 0]);
    expect(await t.get(id)).toMatchObject({ status: 'FAILED', error: STALLED_ERROR, testCaseCount: 0 });
    expect(await t.credits()).toEqual({ spent: 0, pending: 0 });
    expect(await t.events()).toEqual(['test.failed']);
    // A later pass changes nothing. The test leaves the index once: taken off by this pass, or
    // already by the concurrent pass that read it after the other had failed it.
    setClock(start + 5 * 16 * MINUTE);
    const after = await watch();
    expect(acted(after)).toBe(0);
    expect(a.retired + b.retired + after.retired).toBe(1);
    expect(await indexed(id)).toBe(false);
    expect(await t.events()).toEqual(['test.failed']);
    expect(llm.requests).toHaveLength(0);
  });

  it('leaves a generation that moves alone', async () => {
    const start = Date.now();
    setClock(start);
    const t = await setup();
    const id = await t.create(30); // three steps
    await runOneStep();
    await watch();
    setClock(start + 14 * MINUTE);
    await runOneStep();
    setClock(start + 20 * MINUTE);
    expect(acted(await watch())).toBe(0); // its step moved since the last look
    setClock(start + 28 * MINUTE);
    expect(acted(await watch())).toBe(0); // 8 minutes since it was seen moving
    expect(localGenerationQueue.messages).toHaveLength(1); // its own next step, nothing sent again
    await drain();
    expect(await t.get(id)).toMatchObject({ status: 'SUCCESS', testCaseCount: 30 });
    expect(llm.requests).toHaveLength(3);
  });

  it('never touches a cancelled or a finished test; an extend puts it back on the index', async () => {
    const start = Date.now();
    setClock(start);
    const t = await setup();
    const finished = await t.create(3);
    await drain();
    const cancelled = await t.create(3);
    lose();
    expect((await t.api.post(`/tests/${cancelled}/cancel`)).status).toBe(200);
    for (let round = 0; round <= 4; round++) {
      setClock(start + round * 16 * MINUTE);
      const report = await watch();
      expect(acted(report), `pass ${round}`).toBe(0);
      expect(report.retired).toBe(round === 0 ? 2 : 0);
    }
    expect(localGenerationQueue.messages).toHaveLength(0);
    expect((await t.get(cancelled)).status).toBe('CANCELLED');
    expect(await t.events()).toEqual(['test.generated']);

    // An extend is a new generation: watched from its start, its step sent again when lost.
    const extend = await t.api.post(`/tests/${finished}/extend`, { count: 3 });
    expect(extend.status, JSON.stringify(extend.body)).toBe(200);
    lose();
    expect(await indexed(finished)).toBe(true);
    const later = start + 5 * 16 * MINUTE;
    setClock(later);
    await watch();
    setClock(later + 16 * MINUTE);
    expect((await watch()).redelivered).toBe(1);
    await drain();
    expect(await t.get(finished)).toMatchObject({ status: 'SUCCESS', testCaseCount: 6 });
  });
});
