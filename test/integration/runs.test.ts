import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { newTenant, type Client } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { echoAgent, sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { startLlmStub, type LlmStub } from '../support/llm-server.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { drainRunQueue, runDeadLetters } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { abandonStep } from '../../shared/domain/runs/abandon.js';
import { getRunSession } from '../../shared/db/runs.js';
import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { failCommands, type DocCommand } from '../support/doc-mock.js';
import { doc } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import type { RunJob } from '../../shared/queue/run-queue.js';

type RunStepJob = Extract<RunJob, { kind: 'step' }>;

const TOKEN = 'tok-RUN-SECRET-7a1c';
let agent: TestAgentServer;
let llm: LlmStub;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent();
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
  agent.requests.length = 0;
  agent.setHandler(echoAgent);
  llm.requests.length = 0;
  setLlmConfig({ baseUrl: llm.url, timeoutMs: 2000, backoffMs: 10, maxAttempts: 2 });
});

const drain = (options: { duplicate?: boolean; concurrency?: number } = {}) =>
  drainRunQueue((e) => runner(e) as Promise<unknown>, options);

interface SetupOptions {
  conversation?: Record<string, unknown>;
  csv?: string;
  type?: 'QUALITY' | 'RED_TEAMING' | 'SCENARIOS';
  metricIds?: string[];
  version?: (productId: string, api: Client) => Promise<Record<string, unknown>>;
}

async function setup(o: SetupOptions = {}) {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const conversation = await createConnection(t.api, product.id, {
    url: `${agent.url}/chat`,
    authType: 'BEARER',
    authToken: TOKEN,
    inputTemplate:
      '{"message": "{{ input.user_message }}", "session": "{{ session_id }}", "run": "{{ run_id }}", "turn": "{{ inference_result_id }}"}',
    outputMapping: { output: '$.reply' },
    ...o.conversation,
  });
  const extra = o.version ? await o.version(product.id, t.api) : {};
  const version = await createVersion(t.api, product.id, {
    conversationEndpointConnectionId: conversation.id,
    ...extra,
  });
  const spec = (
    await t.api.post('/specifications', { productId: product.id, description: 'answers politely', type: 'CAPABILITY' })
  ).body;
  const linked = await t.api.post(`/specifications/${spec.id}/metrics`, {
    metricIds: o.metricIds ?? ['met_non_empty_output', 'met_text_similarity'],
  });
  expect(linked.status).toBe(200);
  const uri = await uploadCsv(
    t.api,
    o.csv ?? 'input,expected_output\nhello there,hello there\nwhere is my order,it ships today\n',
  );
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: 'smoke',
      type: o.type ?? 'QUALITY',
      uri,
      specificationId: spec.id,
      ...(o.type === 'SCENARIOS' ? { strategies: ['written'] } : {}),
    })
  ).body;
  expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
  const startRun = async (body: Record<string, unknown> = {}) => {
    const res = await t.api.post('/runs', { versionId: version.id, testId: test.id, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const sessionsOf = async (runId: string) =>
    (await t.api.get('/sessions', { runIds: runId, sort: 'createdAt:asc' })).body as any[];
  const turnsOf = async (sessionId: string) =>
    (await t.api.get('/inferenceResults', { sessionIds: sessionId })).body as any[];
  const evaluationsOf = async (sessionId: string) =>
    (await t.api.get('/evaluations', { sessionIds: sessionId })).body as any[];
  return { ...t, product, conversation, version, spec, test, startRun, sessionsOf, turnsOf, evaluationsOf };
}

describe('runs: execution', () => {
  it('runs a QUALITY test: one turn per case through the agent, scored with the specification metrics', async () => {
    const t = await setup();
    const run = await t.startRun({ name: 'nightly' });
    expect(run).toMatchObject({
      name: 'nightly',
      status: 'PENDING',
      versionId: t.version.id,
      productId: t.product.id,
      testIds: [t.test.id],
      specificationIds: [t.spec.id],
      progress: { total: 2, pending: 2, running: 0, completed: 0, failed: 0 },
      startedAt: null,
      finishedAt: null,
      error: null,
    });
    expect(run.id).toMatch(/^run_[0-9A-Z]{26}$/);
    expect(run.metrics.map((m: any) => m.name).sort()).toEqual(['non_empty_output', 'text_similarity']);

    await drain();
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 2, pending: 0, running: 0, completed: 2, failed: 0 },
    });
    expect(done.startedAt).not.toBeNull();
    expect(done.finishedAt).not.toBeNull();
    const byName = Object.fromEntries(done.metrics.map((m: any) => [m.name, m]));
    expect(byName.non_empty_output).toMatchObject({
      evaluated: 2,
      failed: 0,
      skipped: 0,
      score: 1,
      confidenceInterval: null,
    });
    // "hello there" echoes exactly; "where is my order" vs "it ships today" does not.
    expect(byName.text_similarity.evaluated).toBe(2);
    expect(byName.text_similarity.score).toBeGreaterThan(0.5);
    expect(byName.text_similarity.score).toBeLessThan(1);

    const sessions = await t.sessionsOf(run.id);
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s).toMatchObject({
        status: 'COMPLETED',
        isProduction: false,
        runId: run.id,
        testId: t.test.id,
        stoppingReason: 'completed',
        turnCount: 1,
        error: null,
      });
      expect(Object.keys(s).some((k) => k.startsWith('_'))).toBe(false);
      const turns = await t.turnsOf(s.id);
      expect(turns).toHaveLength(1);
      expect(turns[0].output).toBe(turns[0].input);
      const evaluations = await t.evaluationsOf(s.id);
      expect(evaluations).toHaveLength(2);
      expect(evaluations.every((e: any) => e.status === 'SUCCESS' && e.inferenceResultId === turns[0].id)).toBe(true);
    }
    expect(new Set(sessions.map((s) => s.testCaseId)).size).toBe(2);

    // The agent's view: one request per case, with the auth header and the run's variables.
    expect(agent.requests).toHaveLength(2);
    for (const r of agent.requests) {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.headers['user-agent']).toMatch(/^eval-platform-api\//);
      expect(r.headers['x-inference-result-id']).toBe(r.json.turn);
      expect(r.json.run).toBe(run.id);
    }
    const turnIds = (await Promise.all(sessions.map((s) => t.turnsOf(s.id))))
      .flat()
      .map((x) => x.id)
      .sort();
    expect(agent.requests.map((r) => r.json.turn).sort()).toEqual(turnIds);
    // No secret is ever stored or shown.
    expect(JSON.stringify([done, sessions])).not.toContain(TOKEN);
    // The test now counts as run on this version, and as having evaluations (marked once, as the run ends).
    expect((await t.api.get('/tests', { versionIds: t.version.id })).body.map((x: any) => x.id)).toEqual([t.test.id]);
    expect((await t.api.get('/tests', { hasEvaluations: true })).body.map((x: any) => x.id)).toEqual([t.test.id]);
  });

  it('maps retrieval_context, traces, usage and extra keys of the answer onto the turn, its spans and the session', async () => {
    agent.setHandler((req, res) =>
      sendJson(res, 200, {
        reply: `answer to ${req.json.message}`,
        docs: ['doc one', 'doc two'],
        steps: [{ name: 'search_orders', type: 'tool', input: { q: 'x' } }, 'not a span'],
        usage: { input_tokens: 12, output_tokens: 5 },
        mood: 'calm',
      }),
    );
    const t = await setup({
      csv: 'input,expected_output\nwhere is it,shipped\n',
      conversation: {
        outputMapping: {
          output: '$.reply',
          retrieval_context: '$.docs',
          traces: '$.steps',
          usage: '$.usage',
          mood: '$.mood',
        },
      },
    });
    const run = await t.startRun();
    await drain();
    const [s] = await t.sessionsOf(run.id);
    expect(s).toMatchObject({ status: 'COMPLETED', metadata: { mood: 'calm' } });
    const [turn] = await t.turnsOf(s.id);
    expect(turn).toMatchObject({
      input: 'where is it',
      output: 'answer to where is it',
      retrievalContext: ['doc one', 'doc two'],
      usage: { inputTokens: 12, outputTokens: 5 },
    });
    expect(turn.latencyMs).toBeGreaterThanOrEqual(0);
    const spans = (await t.api.get('/traces', { inferenceResultIds: turn.id })).body as any[];
    expect(spans.map((x) => [x.type, x.name]).sort()).toEqual([
      ['RETRIEVER', 'retrieval_context'],
      ['TOOL', 'search_orders'],
    ]);
    expect(spans.find((x) => x.type === 'TOOL').inputData).toEqual({ q: 'x' });
    expect((await t.api.get('/tests', { hasTraces: true })).body.map((x: any) => x.id)).toEqual([t.test.id]);
  });

  it('INITIALIZATION returns a session id used by later turns and by the URL; a failing FINALIZATION is kept in metadata', async () => {
    agent.setHandler((req, res, i) => {
      if (req.url.startsWith('/init'))
        return sendJson(res, 200, { greeting: 'welcome', sid: 'agent-42', tier: 'gold' });
      if (req.url.startsWith('/end')) return sendJson(res, 500, { error: 'finalizer exploded' });
      return echoAgent(req, res, i);
    });
    const t = await setup({
      csv: 'input,expected_output\nhello there,hello there\n',
      conversation: { url: `${agent.url}/chat/{{ session_id }}?tier={{ tier }}` },
      version: async (productId, api) => {
        const init = await createConnection(api, productId, {
          type: 'INITIALIZATION',
          url: `${agent.url}/init`,
          inputTemplate: '{"start": "{{ platform_session_id }}", "hint": "{{ input.user_message }}"}',
          outputMapping: { output: '$.greeting', session_id: '$.sid', tier: '$.tier' },
        });
        const fin = await createConnection(api, productId, {
          type: 'FINALIZATION',
          url: `${agent.url}/end/{{ session_id }}`,
          inputTemplate: '{"turns": {{ past_turns | dump }}, "hint": "{{ input.user_message }}"}',
          outputMapping: { output: '$.ok' },
        });
        return { initializationEndpointConnectionId: init.id, finalizationEndpointConnectionId: fin.id };
      },
    });
    const run = await t.startRun();
    await drain();
    const [session] = await t.sessionsOf(run.id);
    expect(session).toMatchObject({ status: 'COMPLETED', customId: 'agent-42', stoppingReason: 'completed' });
    expect(session.metadata).toMatchObject({ output: 'welcome', session_id: 'agent-42', tier: 'gold' });
    expect(session.metadata.finalizationError).toMatch(
      /^FINALIZATION failed: the agent answered 500: .*finalizer exploded/,
    );
    expect(agent.requests.map((r) => r.url)).toEqual(['/init', '/chat/agent-42?tier=gold', '/end/agent-42']);
    expect(agent.requests[0]!.json).toEqual({ start: session.id, hint: '' });
    expect(agent.requests[1]!.json).toMatchObject({ message: 'hello there', session: 'agent-42' });
    expect(agent.requests[2]!.json).toEqual({ turns: [{ input: 'hello there', output: 'hello there' }], hint: '' });
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 1, failed: 0 },
    });
    expect((await t.api.get('/sessions', { customIds: 'agent-42' })).body.map((s: any) => s.id)).toEqual([session.id]);
  });

  it('an INITIALIZATION that maps session_id but returns none fails the session, and FINALIZATION does not run', async () => {
    agent.setHandler((req, res, i) =>
      req.url.startsWith('/init') ? sendJson(res, 200, { greeting: 'hi' }) : echoAgent(req, res, i),
    );
    const t = await setup({
      csv: 'input,expected_output\nhello,hello\n',
      version: async (productId, api) => {
        const init = await createConnection(api, productId, {
          type: 'INITIALIZATION',
          url: `${agent.url}/init`,
          inputTemplate: '{"hint": "{{ input.user_message }}"}',
          outputMapping: { output: '$.greeting', session_id: '$.sid' },
        });
        const fin = await createConnection(api, productId, {
          type: 'FINALIZATION',
          url: `${agent.url}/end`,
          inputTemplate: '{"hint": "{{ input.user_message }}"}',
          outputMapping: { output: '$.ok' },
        });
        return { initializationEndpointConnectionId: init.id, finalizationEndpointConnectionId: fin.id };
      },
    });
    const run = await t.startRun();
    await drain();
    const [session] = await t.sessionsOf(run.id);
    expect(session).toMatchObject({
      status: 'FAILED',
      error: 'INITIALIZATION failed: initialization returned no session_id',
      turnCount: 0,
    });
    expect(agent.requests.map((r) => r.url)).toEqual(['/init']);
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'FAILED',
      progress: { total: 1, completed: 0, failed: 1 },
    });
  });

  it('a failing agent: each session FAILED naming the step and the status, nothing scored, the run FAILED', async () => {
    agent.setHandler((_req, res) => sendJson(res, 400, { error: 'message is required' }));
    const t = await setup();
    const run = await t.startRun();
    await drain();
    const sessions = await t.sessionsOf(run.id);
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s.status).toBe('FAILED');
      expect(s.error).toMatch(/^CONVERSATION turn 1 failed: the agent answered 400: .*message is required/);
      expect(await t.turnsOf(s.id)).toEqual([]);
      expect(await t.evaluationsOf(s.id)).toEqual([]);
    }
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done).toMatchObject({
      status: 'FAILED',
      progress: { total: 2, pending: 0, running: 0, completed: 0, failed: 2 },
    });
    expect(done.metrics.every((m: any) => m.evaluated === 0 && m.score === null)).toBe(true);
    expect(runDeadLetters).toEqual([]);
  });

  it('every job delivered twice: no second turn, no second evaluation, exact counters', async () => {
    const t = await setup();
    const run = await t.startRun();
    await drain({ duplicate: true });
    const sessions = await t.sessionsOf(run.id);
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(await t.turnsOf(s.id)).toHaveLength(1);
      expect(await t.evaluationsOf(s.id)).toHaveLength(2);
    }
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 2, pending: 0, running: 0, completed: 2, failed: 0 },
    });
    expect(done.metrics.map((m: any) => m.evaluated)).toEqual([2, 2]);
  });

  it('scores check metrics in code: on the agent output and on the test case expected output, every job delivered twice', async () => {
    const t = await setup();
    const check = async (name: string, c: Record<string, unknown>) => {
      const res = await t.api.post('/metrics', { name, source: 'DETERMINISTIC', check: c });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    // The echo agent answers each input: "hello there" and "where is my order"; expected "hello there" and "it ships today".
    const greets = await check('greets', { type: 'starts_with', value: 'HELLO', caseSensitive: false });
    const ships = await check('reference mentions shipping', {
      type: 'contains',
      value: 'ships',
      target: 'expected_output',
    });
    const run = await t.startRun({ metricIds: [greets.id, ships.id] });
    await drain({ duplicate: true });
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done.status).toBe('COMPLETED');
    const byName = Object.fromEntries(done.metrics.map((m: any) => [m.name, m]));
    expect(byName.greets).toMatchObject({ metricId: greets.id, evaluated: 2, failed: 0, skipped: 0, score: 0.5 });
    expect(byName['reference mentions shipping']).toMatchObject({ evaluated: 2, failed: 0, skipped: 0, score: 0.5 });
    const reasons = (await Promise.all((await t.sessionsOf(run.id)).map((s) => t.evaluationsOf(s.id))))
      .flat()
      .map((e: any) => `${e.score} ${e.reason}`)
      .sort();
    expect(reasons).toEqual([
      '0 greets: actual_output does not start with "HELLO" (ignoring case): it starts with "where is my order"',
      '0 reference mentions shipping: "ships" not found in expected_output (11 characters searched)',
      '1 greets: actual_output starts with "HELLO" (ignoring case)',
      '1 reference mentions shipping: found "ships" in expected_output at character 4: "it ships today"',
    ]);
  });

  it('a step job delivered again after it finished records nothing and calls nobody', async () => {
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    const run = await t.startRun();
    const delivered: string[] = [];
    await drainRunQueue(async (e) => {
      delivered.push(...e.Records.map((r) => r.body));
      return runner(e);
    });
    // The last step job of the session (its one job: the call, the close and the scoring).
    const stepOne = delivered.filter((b) => JSON.parse(b).kind === 'step').at(-1)!;
    expect(stepOne).toBeDefined();
    const calls = agent.requests.length;
    await runner({ Records: [{ messageId: 'again', body: stepOne }] } as SQSEvent);
    await drain();
    const [s] = await t.sessionsOf(run.id);
    expect(await t.turnsOf(s.id)).toHaveLength(1);
    expect(agent.requests).toHaveLength(calls);
    expect((await t.api.get(`/runs/${run.id}`)).body.progress).toMatchObject({ completed: 1, running: 0 });
  });

  it('a step that failed on every receive ends its session FAILED, naming the step and the cause, and the run still finishes', async () => {
    const t = await setup();
    const run = await t.startRun();
    let abandoned: RunStepJob | undefined;
    await drainRunQueue(async (e) => {
      const job = JSON.parse(e.Records[0]!.body) as RunStepJob | { kind: 'fanout' };
      if (job.kind === 'step' && !abandoned) {
        // What processBatch does with a step job on its last receive (test/unit/queue-batch.test.ts).
        abandoned = job;
        await abandonStep(job, new Error('Throughput exceeds the current capacity'));
        await abandonStep(job, new Error('a second copy'));
        return { batchItemFailures: [] };
      }
      return runner(e);
    });
    expect(abandoned).toBeDefined();
    const sessions = await t.sessionsOf(run.id);
    const failed = sessions.find((s) => s.id === abandoned!.sessionId);
    expect(failed).toMatchObject({
      status: 'FAILED',
      error: `the session stopped: step ${abandoned!.seq + 1} failed 3 times (Throughput exceeds the current capacity)`,
    });
    expect(await t.turnsOf(failed.id)).toEqual([]);
    expect(sessions.filter((s) => s.status === 'COMPLETED')).toHaveLength(1);
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done.status).not.toBe('RUNNING');
    expect(done.progress).toMatchObject({ total: 2, pending: 0, running: 0, completed: 1, failed: 1 });
    expect(runDeadLetters).toEqual([]);
  });

  /**
   * An invocation with less time left than closing a session may take: the job of the last call
   * leaves the close and the scoring to a job of their own, the closing step these tests intercept.
   */
  const SHORT_INVOCATION = { getRemainingTimeInMillis: () => 9_000 } as Context;

  /** The first closing step (the conversation has ended, the session is not closed yet) of a drained run, handled by `take` instead of the runner. */
  async function interceptClosing(
    take: (job: RunStepJob, event: SQSEvent) => Promise<void>,
  ): Promise<RunStepJob | undefined> {
    let taken: RunStepJob | undefined;
    await drainRunQueue(async (e) => {
      const job = JSON.parse(e.Records[0]!.body) as RunJob;
      if (job.kind === 'step' && !taken) {
        const s = await getRunSession(job.sessionId);
        // (checked again after the read: the queue may deliver both sessions' closing steps at once)
        if (!taken && s && s._seq === job.seq && s._end && s._phase === 'RUNNING') {
          taken = job;
          await take(job, e);
          return { batchItemFailures: [] };
        }
      }
      return runner(e, SHORT_INVOCATION);
    });
    return taken;
  }
  const throughput = () =>
    Object.assign(new Error('Throughput exceeds the current capacity'), {
      name: 'ProvisionedThroughputExceededException',
    });

  it('a closing step that failed on every receive: the session keeps its status, gets no evaluations and the cause, and the run finishes', async () => {
    const t = await setup();
    const run = await t.startRun();
    const taken = await interceptClosing(async (job) => {
      await abandonStep(job, throughput());
      await abandonStep(job, new Error('a second copy'));
    });
    expect(taken).toBeDefined();
    const sessions = await t.sessionsOf(run.id);
    const closed = sessions.find((s) => s.id === taken!.sessionId);
    expect(closed).toMatchObject({
      status: 'COMPLETED',
      error: `the session's evaluations were not planned: step ${taken!.seq + 1} failed 3 times (Throughput exceeds the current capacity)`,
    });
    expect(await t.turnsOf(closed.id)).toHaveLength(1);
    expect(await t.evaluationsOf(closed.id)).toEqual([]);
    const other = sessions.find((s) => s.id !== taken!.sessionId);
    expect(await t.evaluationsOf(other.id)).toHaveLength(2);
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 2, pending: 0, running: 0, completed: 2, failed: 0 },
    });
    expect(runDeadLetters).toEqual([]);
  });

  it('scoring that failed on every receive: the pending evaluations end FAILED naming the cause, the session is counted, the run finishes', async () => {
    // Judged metrics: those are scored after the close (deterministic ones are scored in code, written settled).
    const t = await setup({ metricIds: ['met_answer_relevancy', 'met_correctness'] });
    const run = await t.startRun();
    const taken = await interceptClosing(async (job, event) => {
      // The session closes (its evaluations written), then storage fails while scoring them.
      let closedWritten = false;
      const restore = failCommands((c: DocCommand) => {
        const mine = JSON.stringify(c.input).includes(`SESSION#${job.sessionId}`);
        if (mine && c instanceof TransactWriteCommand && JSON.stringify(c.input).includes('EVALUATING'))
          closedWritten = true;
        return closedWritten && mine && c instanceof GetCommand && String(c.input.Key?.sk).startsWith('EVAL#');
      }, throughput);
      try {
        expect((await runner(event, SHORT_INVOCATION)) as SQSBatchResponse).toMatchObject({
          batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }],
        });
      } finally {
        restore();
      }
      const s = await getRunSession(job.sessionId);
      expect(s).toMatchObject({ _phase: 'EVALUATING', _seq: job.seq + 1 });
      // what processBatch does with the scoring step on its last receive
      const scoring = { ...job, seq: job.seq + 1 };
      await abandonStep(scoring, throughput());
      await abandonStep(scoring, new Error('a second copy'));
    });
    expect(taken).toBeDefined();
    const evaluations = await t.evaluationsOf(taken!.sessionId);
    expect(evaluations).toHaveLength(2);
    for (const e of evaluations)
      expect(e).toMatchObject({
        status: 'FAILED',
        score: null,
        error: `scoring stopped: step ${taken!.seq + 2} failed 3 times (Throughput exceeds the current capacity)`,
      });
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 2, pending: 0, running: 0, completed: 2, failed: 0 },
    });
    expect(runDeadLetters).toEqual([]);
  });

  it('a rate-limited connection spaces its calls across concurrent workers', async () => {
    const t = await setup({
      conversation: { rateLimit: 300 },
      csv: `input,expected_output\n${Array.from({ length: 5 }, (_, i) => `q${i},q${i}`).join('\n')}\n`,
    });
    const run = await t.startRun();
    // The slots the calls were given (epoch ms, as reserved on the connection's token): an idle token
    // gives the earliest start asked for, a busy one its next slot, which then moves one interval on.
    const token = JSON.stringify(keys.rateLimit(t.conversation.id));
    const granted: number[] = [];
    const send = doc.send.bind(doc) as (command: DocCommand) => Promise<unknown>;
    const spy = vi.spyOn(doc, 'send').mockImplementation((async (command: DocCommand) => {
      const isSlot = command instanceof UpdateCommand && JSON.stringify(command.input.Key) === token;
      const out = (await send(command)) as { Attributes?: { tat?: number } };
      if (isSlot) {
        const values = command.input.ExpressionAttributeValues!;
        granted.push(
          values[':interval'] === undefined
            ? (values[':earliest'] as number)
            : Number(out.Attributes?.tat) - (values[':interval'] as number),
        );
      }
      return out;
    }) as never);
    try {
      await drain({ concurrency: 10 });
    } finally {
      spy.mockRestore();
    }
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 5 },
    });
    expect(agent.requests).toHaveLength(5);
    // A slot per call (another when a job woke too late for its own); 300 per minute: at least 200 ms apart.
    expect(granted.length).toBeGreaterThanOrEqual(5);
    granted.sort((a, b) => a - b);
    for (let i = 1; i < granted.length; i++) expect(granted[i]! - granted[i - 1]!).toBeGreaterThanOrEqual(200);
  });

  it('a step job without the records jobs now carry (queued before they did) reads them and runs, every job twice', async () => {
    const t = await setup();
    const run = await t.startRun();
    await drainRunQueue(
      async (e) => {
        const records = e.Records.map((r) => {
          const { carry: _carry, ...job } = JSON.parse(r.body);
          return { ...r, body: JSON.stringify(job) };
        });
        return runner({ Records: records } as SQSEvent);
      },
      { duplicate: true },
    );
    const done = (await t.api.get(`/runs/${run.id}`)).body;
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total: 2, completed: 2, pending: 0, running: 0 } });
    expect(done.metrics.map((m: any) => m.evaluated)).toEqual([2, 2]);
    // Each first step was delivered twice, so each case may have been sent twice; it is recorded once.
    expect([...new Set(agent.requests.map((r) => r.json.message))].sort()).toEqual([
      'hello there',
      'where is my order',
    ]);
    expect(agent.requests.length).toBeLessThanOrEqual(4);
    for (const s of await t.sessionsOf(run.id)) expect(await t.turnsOf(s.id)).toHaveLength(1);
  });

  it('a fan-out page delivered again after a failure starts the sessions its first delivery created but did not queue', async () => {
    const t = await setup();
    const run = await t.startRun();
    const page = localRunQueue.messages.shift()!;
    const deliver = (receives: number) =>
      runner({
        Records: [{ messageId: page.id, body: page.body, attributes: { ApproximateReceiveCount: String(receives) } }],
      } as unknown as SQSEvent);
    await deliver(1);
    // The first delivery created the sessions, then failed before its first steps reached the queue.
    localRunQueue.messages.length = 0;
    expect(await t.sessionsOf(run.id)).toHaveLength(2);
    await deliver(2);
    expect(localRunQueue.messages.map((m) => JSON.parse(m.body).kind)).toEqual(['step', 'step']);
    await drain();
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 2 },
    });
    expect(agent.requests).toHaveLength(2);
  });

  it('a job that counted the last session and failed before finishing the run: its next delivery finishes it', async () => {
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    const run = await t.startRun();
    let failures = 0;
    // Reading the run to finish it fails once (after the session was counted).
    const restore = failCommands((c: DocCommand) => {
      const reading = c instanceof BatchGetCommand && JSON.stringify(c.input).includes(`RUN#${run.id}`);
      return reading && agent.requests.length === 1 && failures++ === 0;
    }, throughput);
    try {
      await drain();
    } finally {
      restore();
    }
    expect(failures).toBeGreaterThan(0);
    expect(agent.requests).toHaveLength(1);
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 1, pending: 0, running: 0, completed: 1, failed: 0 },
    });
    expect(runDeadLetters).toEqual([]);
  });

  it('SCENARIOS: the simulated user talks to the agent until it stops; the session is scored as a whole', async () => {
    llm.setHandler((req) => {
      if (req.schemaName === 'judge_score') return { score: 0.8, reason: 'goal reached' };
      const userTurns = new Set(
        req.messages
          .map((m) => m.content)
          .join('\n')
          .match(/simulated ask \d/g) ?? [],
      ).size;
      return userTurns >= 2
        ? { stop: true, reason: 'goal_achieved', message: '' }
        : { stop: false, reason: 'asking', message: `simulated ask ${userTurns + 1}` };
    });
    const t = await setup({
      type: 'SCENARIOS',
      csv: 'goal,user_persona,max_iterations\nget a refund,impatient customer,5\n',
      metricIds: ['met_goal_completion'],
    });
    const run = await t.startRun();
    await drain();
    const [s] = await t.sessionsOf(run.id);
    expect(s).toMatchObject({ status: 'COMPLETED', stoppingReason: 'goal_achieved', turnCount: 2 });
    const turns = await t.turnsOf(s.id);
    expect(turns.map((x: any) => [x.input, x.output])).toEqual([
      ['simulated ask 1', 'simulated ask 1'],
      ['simulated ask 2', 'simulated ask 2'],
    ]);
    const sim = llm.requests.filter((r) => r.schemaName === 'simulated_user_turn');
    expect(sim).toHaveLength(3);
    expect(sim[0]!.messages.map((m) => m.content).join('\n')).toContain('impatient customer');
    const evaluations = await t.evaluationsOf(s.id);
    expect(evaluations).toHaveLength(1);
    expect(evaluations[0]).toMatchObject({
      status: 'SUCCESS',
      score: 0.8,
      inferenceResultId: null,
      metricId: 'met_goal_completion',
    });
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      metrics: [{ metricId: 'met_goal_completion', evaluated: 1, score: 0.8 }],
    });
    // Every simulator answer and the judge's were charged (at least one credit each).
    expect(evaluations[0].creditsUsed).toBeGreaterThan(0);
    expect((await t.api.get('/organization')).body.spentCredits).toBeGreaterThanOrEqual(sim.length + 1);
  });

  it('SCENARIOS stop at maxIterations, and when the simulator is not configured the session fails saying so', async () => {
    llm.setHandler(() => ({ stop: false, reason: 'again', message: 'one more thing' }));
    const t = await setup({
      type: 'SCENARIOS',
      csv: 'goal,user_persona,max_iterations\nchat,curious,2\n',
      metricIds: ['met_non_empty_output'],
    });
    const run = await t.startRun();
    await drain();
    const [s] = await t.sessionsOf(run.id);
    expect(s).toMatchObject({ status: 'COMPLETED', stoppingReason: 'max_iterations', turnCount: 2 });

    setLlmConfig({ baseUrl: undefined });
    const second = await t.startRun();
    await drain();
    const [f] = await t.sessionsOf(second.id);
    expect(f.status).toBe('FAILED');
    expect(f.error).toMatch(/^SIMULATED_USER failed before turn 1: no simulator model is configured/);
  });
});

describe('runs: cancel', () => {
  it('fails the sessions that recorded no turn, starts nothing more, and refuses a second cancel', async () => {
    const t = await setup();
    const run = await t.startRun();
    // Only the fan-out runs: the sessions exist and wait for their first step.
    const fanout = localRunQueue.messages.shift()!;
    await runner({ Records: [{ messageId: fanout.id, body: fanout.body }] } as SQSEvent);
    expect((await t.sessionsOf(run.id)).map((s) => s.status)).toEqual(['PENDING', 'PENDING']);

    const cancelled = await t.api.post(`/runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: 'CANCELLED',
      progress: { total: 2, pending: 0, running: 0, completed: 0, failed: 2 },
    });
    expect(cancelled.body.finishedAt).not.toBeNull();

    // The cancel job fails the waiting sessions; their queued steps start nothing.
    await drain();
    for (const s of await t.sessionsOf(run.id))
      expect(s).toMatchObject({ status: 'FAILED', stoppingReason: 'cancelled' });
    expect(agent.requests).toHaveLength(0);
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({
      status: 'CANCELLED',
      progress: { failed: 2, pending: 0 },
    });
    const again = await t.api.post(`/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'Conflict',
      message: `run ${run.id} is CANCELLED; only PENDING or RUNNING runs can be cancelled`,
    });
  });

  it('a run cancelled before its fan-out creates its sessions already failed', async () => {
    const t = await setup();
    const run = await t.startRun();
    expect((await t.api.post(`/runs/${run.id}/cancel`)).status).toBe(200);
    await drain();
    expect(agent.requests).toHaveLength(0);
    const sessions = await t.sessionsOf(run.id);
    expect(sessions.map((s) => [s.status, s.stoppingReason])).toEqual([
      ['FAILED', 'cancelled'],
      ['FAILED', 'cancelled'],
    ]);
    expect((await t.api.get(`/runs/${run.id}`)).body.progress).toEqual({
      total: 2,
      pending: 0,
      running: 0,
      completed: 0,
      failed: 2,
    });
  });

  it('a finished run cannot be cancelled; another organization gets 403, an unknown run 404', async () => {
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    const other = await newTenant();
    const run = await t.startRun();
    expect((await other.api.post(`/runs/${run.id}/cancel`)).status).toBe(403);
    expect((await other.api.get(`/runs/${run.id}`)).status).toBe(403);
    expect((await other.api.get('/sessions', { runIds: run.id })).status).toBe(403);
    expect((await t.api.post('/runs/run_01NOPE/cancel')).status).toBe(404);
    expect((await t.api.get('/runs/run_01NOPE')).status).toBe(404);
    await drain();
    const res = await t.api.post(`/runs/${run.id}/cancel`);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(`run ${run.id} is COMPLETED; only PENDING or RUNNING runs can be cancelled`);
  });
});

describe('runs: create validation and lists', () => {
  it('refuses bad requests with a 400 naming the field, and leaves nothing behind', async () => {
    const t = await setup();
    const other = await setup();
    const post = async (body: Record<string, unknown>) => {
      const res = await t.api.post('/runs', body);
      return { status: res.status, message: res.body.message as string };
    };
    const v = t.version.id;
    expect(await post({ testId: t.test.id })).toEqual({ status: 400, message: 'versionId is required' });
    expect(await post({ versionId: v })).toEqual({
      status: 400,
      message: 'one of testId or specificationIds is required',
    });
    expect((await post({ versionId: v, testId: t.test.id, specificationIds: [t.spec.id] })).message).toMatch(
      /^testId and specificationIds cannot both be given/,
    );
    expect(await post({ versionId: v, specificationIds: [t.spec.id], testCaseIds: ['tcase_x'] })).toEqual({
      status: 400,
      message: 'testCaseIds may be given only with testId',
    });
    expect((await post({ versionId: v, testId: t.test.id, status: 'RUNNING' })).message).toBe("unknown field 'status'");
    expect((await post({ versionId: v, specificationIds: [] })).status).toBe(400);
    expect(
      (await post({ versionId: v, testId: t.test.id, metricIds: Array.from({ length: 51 }, (_, i) => `met_${i}`) }))
        .status,
    ).toBe(400);
    expect(await post({ versionId: 'ver_nope', testId: t.test.id })).toEqual({
      status: 400,
      message: 'versionId ver_nope does not name an existing version',
    });
    expect(await post({ versionId: v, testId: 'test_nope' })).toEqual({
      status: 400,
      message: 'testId test_nope does not name an existing test',
    });
    expect((await post({ versionId: v, testId: t.test.id, metricIds: ['met_nope'] })).message).toBe(
      'metricIds: metric met_nope does not exist',
    );
    expect((await post({ versionId: v, testId: t.test.id, testCaseIds: ['tcase_nope'] })).message).toBe(
      `testCaseIds: tcase_nope is not a test case of test ${t.test.id}`,
    );
    expect((await post({ versionId: v, specificationIds: ['spec_nope'] })).message).toBe(
      'specificationIds spec_nope does not name an existing specification',
    );

    // Another organization's version, test, specification, metric: 403.
    expect((await post({ versionId: other.version.id, testId: t.test.id })).status).toBe(403);
    expect((await post({ versionId: v, testId: other.test.id })).status).toBe(403);
    expect((await post({ versionId: v, specificationIds: [other.spec.id] })).status).toBe(403);
    const theirMetric = (
      await other.api.post('/metrics', {
        name: 'mine',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['input', 'actual_output'],
        judgePrompt: 'x',
        evaluatorModelName: 'gpt-4o',
      })
    ).body;
    expect((await post({ versionId: v, testId: t.test.id, metricIds: [theirMetric.id] })).status).toBe(403);

    // No CONVERSATION connection and no phone connection: the message names both.
    const bare = await createVersion(t.api, t.product.id);
    const noConn = await post({ versionId: bare.id, testId: t.test.id });
    expect(noConn.status).toBe(400);
    expect(noConn.message).toMatch(
      /^conversationEndpointConnectionId or phoneConnectionId: version ver_\w+ has neither a CONVERSATION endpoint connection nor a phone connection/,
    );

    // A test that is not SUCCESS; a test of another product; nothing to score.
    const pending = (await t.api.post('/tests', { productId: t.product.id, name: 'generated', type: 'QUALITY' })).body;
    expect((await post({ versionId: v, testId: pending.id })).message).toBe(
      `testId: test ${pending.id} is PENDING; only SUCCESS tests can run`,
    );
    const product2 = await createProduct(t.api, { name: 'other product' });
    const conn2 = await createConnection(t.api, product2.id, { url: `${agent.url}/chat` });
    const v2 = await createVersion(t.api, product2.id, { conversationEndpointConnectionId: conn2.id });
    expect((await post({ versionId: v2.id, testId: t.test.id })).message).toMatch(
      /^testId: test \w+ belongs to another product/,
    );
    const unscored = (
      await t.api.post('/tests', {
        productId: t.product.id,
        name: 'no spec',
        type: 'QUALITY',
        uri: await uploadCsv(t.api, 'input,expected_output\na,b\n'),
      })
    ).body;
    expect((await post({ versionId: v, testId: unscored.id })).message).toMatch(
      /^metricIds: nothing to score: test \w+ has no specification with linked metrics/,
    );
    const emptySpec = (
      await t.api.post('/specifications', { productId: t.product.id, description: 'no tests yet', type: 'CAPABILITY' })
    ).body;
    expect((await post({ versionId: v, specificationIds: [emptySpec.id] })).message).toBe(
      `specificationIds: specification ${emptySpec.id} has no SUCCESS test to run`,
    );

    // Nothing was stored, nothing queued.
    expect((await t.api.get('/runs')).headers['x-total-count']).toBe('0');
    expect(localRunQueue.messages).toHaveLength(0);
  });

  it('takes specificationIds (every SUCCESS test of each, with its metrics) or named test cases; metricIds replace the linked ones', async () => {
    const t = await setup();
    const bySpec = await t.startRun({ testId: undefined, specificationIds: [t.spec.id] });
    expect(bySpec).toMatchObject({ testIds: [t.test.id], specificationIds: [t.spec.id], progress: { total: 2 } });
    const cases = (await t.api.get('/testCases', { testIds: t.test.id })).body;
    const some = await t.startRun({ testCaseIds: [cases[1].id], metricIds: ['met_is_json'] });
    expect(some).toMatchObject({
      progress: { total: 1 },
      metricIds: ['met_is_json'],
      metrics: [{ metricId: 'met_is_json', name: 'is_json', evaluated: 0, score: null }],
    });
    await drain();
    const sessions = await t.sessionsOf(some.id);
    expect(sessions.map((s) => s.testCaseId)).toEqual([cases[1].id]);
    expect((await t.api.get(`/runs/${some.id}`)).body.metrics[0]).toMatchObject({ evaluated: 1, score: 0 });
    expect((await t.api.get(`/runs/${bySpec.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 2 },
    });
  });

  it('lists runs with filters, sorting and pagination', async () => {
    const t = await setup();
    const a = await t.startRun({ name: 'alpha' });
    const b = await t.startRun({ name: 'beta' });
    const c = await t.startRun({ name: 'gamma' });
    await t.api.post(`/runs/${c.id}/cancel`);
    const ids = async (q: Record<string, string | number>) => {
      const res = await t.api.get('/runs', q);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { ids: (res.body as any[]).map((r) => r.id), total: res.headers['x-total-count'] };
    };
    expect(await ids({})).toEqual({ ids: [c.id, b.id, a.id], total: '3' });
    expect(await ids({ sort: 'name:asc', limit: 2 })).toEqual({ ids: [a.id, b.id], total: '3' });
    expect(await ids({ sort: 'name:asc', limit: 2, offset: 2 })).toEqual({ ids: [c.id], total: '3' });
    expect(await ids({ statuses: 'CANCELLED' })).toEqual({ ids: [c.id], total: '1' });
    expect(await ids({ statuses: 'PENDING,RUNNING', sort: 'name:asc' })).toEqual({ ids: [a.id, b.id], total: '2' });
    expect(await ids({ versionIds: t.version.id, productIds: t.product.id, testIds: t.test.id, name: 'ALP' })).toEqual({
      ids: [a.id],
      total: '1',
    });
    expect(await ids({ versionIds: 'ver_other' })).toEqual({ ids: [], total: '0' });
    expect((await t.api.get('/runs', { statuses: 'DONE' })).status).toBe(400);
    expect((await t.api.get('/runs', { colour: 'red' })).body.message).toBe("unknown query parameter 'colour'");
    expect((await t.api.get(`/runs/${a.id}`)).body).toMatchObject({ id: a.id, name: 'alpha' });
    const other = await newTenant();
    expect((await other.api.get('/runs')).headers['x-total-count']).toBe('0');
  });
});
