import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import { drainRunQueue, runDeadLetters } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { doc, observeRequests } from '../../shared/db/client.js';
import { RUN_SHARDS } from '../../shared/db/run-counters.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { newTenant } from '../support/api.js';
import { echoAgent, startAgent, type TestAgentServer } from '../support/agent-server.js';
import type { DocCommand } from '../support/doc-mock.js';
import { createConnection, createProduct, createVersion } from '../support/fixtures.js';
import { startLlmStub, type LlmStub } from '../support/llm-server.js';

/**
 * What a run costs in DynamoDB requests, counted by the document client's own hook (a BatchGet, a
 * Query or a TransactWrite is one request): from the fan-out that creates a session to its
 * evaluation counted in the run.
 */

let agent: TestAgentServer;
let llm: LlmStub;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent(echoAgent);
  llm = await startLlmStub();
});
afterAll(async () => {
  setLlmConfig({ baseUrl: undefined });
  await agent.close();
  await llm.close();
});
beforeEach(() => {
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  runDeadLetters.length = 0;
  setLlmConfig({ baseUrl: llm.url, timeoutMs: 2000, backoffMs: 10, maxAttempts: 2 });
});

/** A version whose one CONVERSATION connection has no rate limit, and a test of the given cases. */
async function fixture(type: 'QUALITY' | 'SCENARIOS', csv: string) {
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
  await fetch(put.body.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: 'budget',
      type,
      uri: put.body.uri,
      ...(type === 'SCENARIOS' ? { strategies: ['written'] } : {}),
    })
  ).body;
  expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
  return { ...t, version, test };
}

/** Starts a run with one deterministic metric and drains it, counting the requests of the drain. */
async function countedRun(f: Awaited<ReturnType<typeof fixture>>, options: { duplicate?: boolean } = {}) {
  const created = await f.api.post('/runs', {
    versionId: f.version.id,
    testId: f.test.id,
    metricIds: ['met_non_empty_output'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const byOperation: Record<string, number> = {};
  const stop = observeRequests((op) => {
    byOperation[op] = (byOperation[op] ?? 0) + 1;
  });
  try {
    await drainRunQueue((e) => runner(e) as Promise<unknown>, options);
  } finally {
    stop();
  }
  const run = (await f.api.get(`/runs/${created.body.id}`)).body;
  const requests = Object.values(byOperation).reduce((a, b) => a + b, 0);
  return { run, requests, byOperation };
}

describe('runs: DynamoDB requests per case', () => {
  it('a single-turn case costs at most 12 requests, the run included', async () => {
    const cases = 20;
    const rows = Array.from({ length: cases }, (_, i) => `question ${i},question ${i}`).join('\n');
    const f = await fixture('QUALITY', `input,expected_output\n${rows}\n`);
    const { run, requests, byOperation } = await countedRun(f);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { total: cases, completed: cases, failed: 0 } });
    expect(run.metrics[0]).toMatchObject({ evaluated: cases, score: 1 });
    expect(requests / cases, JSON.stringify(byOperation)).toBeLessThanOrEqual(12);
    // A step reads what it needs once: one BatchGet per case, no GetItem per record. The others: the
    // fan-out's records, the run with all its shards, read by whichever session completes a shard,
    // and the run's sessions, read for its pass figures by the session that finishes it (two shards'
    // last sessions may both try, one of them finishing it).
    expect(byOperation.BatchGetItem, JSON.stringify(byOperation)).toBeLessThanOrEqual(cases + 2 + RUN_SHARDS + 2);

    // A run of one case pays the run's own requests (fan-out page, finish) on top, and still fits.
    const one = await fixture('QUALITY', 'input,expected_output\nhello,hello\n');
    const single = await countedRun(one);
    expect(single.run.status).toBe('COMPLETED');
    expect(single.requests, JSON.stringify(single.byOperation)).toBeLessThanOrEqual(12 + 12);
  });

  it('each further turn of a multi-turn case adds at most 5 requests', async () => {
    // The simulated user never stops: the conversation lasts max_iterations turns.
    llm.setHandler(() => ({ stop: false, reason: 'again', message: 'one more thing' }));
    // A first run warms what a process keeps (the simulator's model record) for both counted ones.
    await countedRun(await fixture('SCENARIOS', 'goal,user_persona,max_iterations\nchat,curious,1\n'));
    const four = await countedRun(await fixture('SCENARIOS', 'goal,user_persona,max_iterations\nchat,curious,4\n'));
    const two = await countedRun(await fixture('SCENARIOS', 'goal,user_persona,max_iterations\nchat,curious,2\n'));
    expect(four.run).toMatchObject({ status: 'COMPLETED', progress: { completed: 1 } });
    expect(two.run).toMatchObject({ status: 'COMPLETED', progress: { completed: 1 } });
    const perTurn = (four.requests - two.requests) / 2;
    expect(perTurn, JSON.stringify({ four: four.byOperation, two: two.byOperation })).toBeLessThanOrEqual(5);
  });

  it('every job delivered twice: the run still ends exact (the budget holds for single deliveries)', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => `q${i},q${i}`).join('\n');
    const f = await fixture('QUALITY', `input,expected_output\n${rows}\n`);
    const { run } = await countedRun(f, { duplicate: true });
    expect(run).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 5, pending: 0, running: 0, completed: 5, failed: 0 },
    });
    expect(run.metrics[0]).toMatchObject({ evaluated: 5, score: 1 });
  });
});

describe('runs: no hot item', () => {
  /** Writes per item (`pk|sk`) of every command the document client sends, until the returned stop. */
  function countWrites(): { perItem: Map<string, number>; stop: () => void } {
    const perItem = new Map<string, number>();
    const note = (k: { pk?: unknown; sk?: unknown } | undefined) => {
      if (!k) return;
      const id = `${String(k.pk)}|${String(k.sk)}`;
      perItem.set(id, (perItem.get(id) ?? 0) + 1);
    };
    const original = doc.send.bind(doc) as (c: DocCommand) => Promise<unknown>;
    const spy = vi.spyOn(doc, 'send').mockImplementation(((c: DocCommand) => {
      const input = c.input as Record<string, any>;
      if (c instanceof UpdateCommand) note(input.Key);
      if (c instanceof PutCommand) note(input.Item);
      if (c instanceof TransactWriteCommand)
        for (const t of input.TransactItems ?? []) note(t.Update?.Key ?? t.Put?.Item ?? t.Delete?.Key);
      return original(c);
    }) as never);
    return { perItem, stop: () => spy.mockRestore() };
  }

  it('concurrent steps, every job delivered twice: the progress never goes backwards, ends exact, and no item takes the run’s writes', async () => {
    const cases = 100;
    const concurrency = 10;
    const rows = Array.from({ length: cases }, (_, i) => `q${i},q${i}`).join('\n');
    const f = await fixture('QUALITY', `input,expected_output\n${rows}\n`);
    const created = (
      await f.api.post('/runs', { versionId: f.version.id, testId: f.test.id, metricIds: ['met_non_empty_output'] })
    ).body;
    const writes = countWrites();
    const seen: any[] = [];
    let draining = true;
    const watcher = (async () => {
      while (draining) seen.push((await f.api.get(`/runs/${created.id}`)).body.progress);
    })();
    try {
      await drainRunQueue((e) => runner(e) as Promise<unknown>, { duplicate: true, concurrency });
    } finally {
      draining = false;
      await watcher;
      writes.stop();
    }
    const end = (await f.api.get(`/runs/${created.id}`)).body;
    seen.push(end.progress);
    expect(end).toMatchObject({
      status: 'COMPLETED',
      progress: { total: cases, pending: 0, running: 0, completed: cases, failed: 0 },
    });
    expect(end.metrics[0]).toMatchObject({ evaluated: cases, failed: 0, skipped: 0, score: 1 });
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]];
      expect(b.total).toBe(cases);
      expect(b.pending + b.running + b.completed + b.failed).toBe(cases);
      expect(b.completed, JSON.stringify(seen)).toBeGreaterThanOrEqual(a.completed);
      expect(b.failed).toBeGreaterThanOrEqual(a.failed);
      expect(b.pending).toBeLessThanOrEqual(a.pending);
    }
    // Writes sent per item (a refused conditional write counts: it costs the item's capacity too).
    // The run item takes a few (started, sealed, finished; each job twice here, and the sessions
    // that count last at the same moment may each try to finish it), bounded by the jobs at once,
    // not by the sessions; the test two; the sessions' counting spreads over the run's shards, each
    // taking its share; no other item takes more than one session's steps.
    const perItem = [...writes.perItem];
    const of = (match: (k: string) => boolean) => perItem.filter(([k]) => match(k)).map(([, n]) => n);
    const runWrites = of((k) => k.endsWith(`|RUN#${created.id}`));
    expect(runWrites).toHaveLength(1);
    expect(runWrites[0]).toBeLessThanOrEqual(2 * (3 + concurrency));
    expect(Math.max(...of((k) => k.endsWith(`|TEST#${f.test.id}`)))).toBeLessThanOrEqual(2 * 2);
    const shardWrites = of((k) => k.startsWith(`RUNSHARD#${created.id}#`));
    expect(shardWrites).toHaveLength(RUN_SHARDS);
    expect(shardWrites.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2 * cases);
    expect(Math.max(...shardWrites)).toBeLessThan(cases);
    expect(Math.max(...of((k) => !k.startsWith('RUNSHARD#') && !k.endsWith(`|RUN#${created.id}`)))).toBeLessThanOrEqual(
      8,
    );
  });
});
