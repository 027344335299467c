import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import { drainRunQueue, runDeadLetters } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { observeRequests } from '../../shared/db/client.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { newTenant } from '../support/api.js';
import { echoAgent, startAgent, type TestAgentServer } from '../support/agent-server.js';
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
    // A step reads what it needs once: one BatchGet per case (and the fan-out's few), no GetItem per record.
    expect(byOperation.BatchGetItem, JSON.stringify(byOperation)).toBeLessThanOrEqual(cases + 2);

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
