import { localQueue } from '../../infra/local/queues.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { startJudge } from '../support/judge-server.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { deadLetters } from '../../infra/local/queue.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/db/keys.js';
import { failCommands } from '../support/doc-mock.js';
import { vi } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { clock } from '../../shared/domain/common/clock.js';
import { cycleOf } from '../../shared/domain/accounts/organization.js';
import { readSpend } from '../../shared/db/credits.js';

let judge: Awaited<ReturnType<typeof startJudge>>;
beforeAll(async () => {
  judge = await startJudge();
});
afterAll(async () => {
  setLlmConfig({ baseUrl: undefined });
  await judge.close();
});
beforeEach(() => {
  localQueue.messages.length = 0;
  setLlmConfig({ baseUrl: judge.url, timeoutMs: 400, backoffMs: 10, maxAttempts: 3 });
  judge.setMode('good', 0.75);
});

const drain = (duplicate = false) => drainLocalQueue((e) => evaluator(e) as Promise<unknown>, { duplicate });

async function setup(monthlyCredits: number | null = 1000) {
  const t = await newTenant({ monthlyCredits });
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const test = (await t.api.post('/tests', { productId: product.id, name: 'x', type: 'QUALITY' })).body;
  const tc = (
    await t.api.post('/testCases', {
      testId: test.id,
      input: 'order?',
      expectedOutput: '{"status":"shipped","eta":2}',
      expectedTools: ['search_orders'],
    })
  ).body;
  const session = (await t.api.post('/sessions', { versionId: version.id, testCaseId: tc.id })).body;
  const turn = (
    await t.api.post('/inferenceResults', {
      sessionId: session.id,
      input: 'Where is order 42?',
      output: '{"status":"shipped","eta":3}',
    })
  ).body;
  await t.api.post('/traces', { inferenceResultId: turn.id, name: 'Search Orders', type: 'TOOL' });
  const judged = (
    await t.api.post('/metrics', {
      name: 'polite',
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: 'Score politeness.',
      evaluatorModelName: 'gpt-4o',
    })
  ).body;
  const evaluate = async (metricIds: string[]) =>
    (await t.api.post('/evaluations', { sessionId: session.id, metricIds })).body as { id: string; metricId: string }[];
  const read = async (id: string) => (await t.api.get(`/evaluations/${id}`)).body;
  return { ...t, session, judged, evaluate, read };
}

describe('evaluator', () => {
  it('scores deterministic metrics in code at no cost', async () => {
    const t = await setup();
    const evals = await t.evaluate(['met_json_field_match', 'met_tool_correctness', 'met_is_json']);
    await drain();
    const scores = Object.fromEntries(await Promise.all(evals.map(async (e) => [e.metricId, await t.read(e.id)])));
    expect(scores.met_json_field_match).toMatchObject({ status: 'SUCCESS', score: 0.5, creditsUsed: 0 });
    expect(scores.met_tool_correctness).toMatchObject({ status: 'SUCCESS', score: 1 });
    expect(scores.met_is_json).toMatchObject({ status: 'SUCCESS', score: 1, evaluatedAt: expect.any(String) });
    expect((await t.api.get('/organization')).body.spentCredits).toBe(0);
  });

  it('fails a deterministic evaluation on invalid JSON with the parse error', async () => {
    const t = await setup();
    await t.api.post('/inferenceResults', { sessionId: t.session.id, input: 'again', output: 'not json' });
    const [e] = await t.evaluate(['met_json_field_match']);
    await drain();
    expect(await t.read(e!.id)).toMatchObject({
      status: 'FAILED',
      error: expect.stringMatching(/^actual_output is not valid JSON/),
    });
  });

  it('asks the judge, scores, and charges the model’s credits once even when every message is delivered twice', async () => {
    const t = await setup();
    const [e] = await t.evaluate([t.judged.id]);
    await drain(true);
    await drain(true);
    expect(await t.read(e!.id)).toMatchObject({
      status: 'SUCCESS',
      score: 0.75,
      reason: 'judged by the test judge',
      creditsUsed: 4,
    });
    expect((await t.api.get('/organization')).body).toMatchObject({
      spentCredits: 4,
      pendingCredits: 0,
      availableCredits: 996,
    });
    const request = judge.requests.at(-1)!;
    expect(request.model).toBe('gpt-4o');
    expect(request.messages.map((m) => m.content).join('\n')).toContain('<<<BEGIN actual_output>>>');
    // structured outputs through the one LLM client
    expect(request.schemaName).toBe('judge_score');
    expect(request.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: {
        name: 'judge_score',
        strict: true,
        schema: { required: ['score', 'reason'], additionalProperties: false },
      },
    });
  });

  it('fails on a garbage answer, quoting it, and releases the credits', async () => {
    const t = await setup();
    judge.setMode('garbage');
    const [e] = await t.evaluate([t.judged.id]);
    const before = judge.requests.length;
    await drain();
    expect(await t.read(e!.id)).toMatchObject({
      status: 'FAILED',
      error: expect.stringContaining('maybe 8/10'),
      creditsUsed: 0,
    });
    expect(judge.requests.length - before).toBe(2); // an invalid answer is asked again once
    expect((await t.api.get('/organization')).body).toMatchObject({ spentCredits: 0, pendingCredits: 0 });
  });

  it('retries 429 then succeeds; gives up after three timeouts', async () => {
    const t = await setup();
    judge.setMode('flaky429');
    const [ok] = await t.evaluate([t.judged.id]);
    await drain();
    expect((await t.read(ok!.id)).status).toBe('SUCCESS');
    judge.setMode('timeout');
    const [slow] = await t.evaluate([t.judged.id]);
    await drain();
    expect(await t.read(slow!.id)).toMatchObject({
      status: 'FAILED',
      error: 'the judge did not answer within 400 ms (after 3 attempts)',
    });
  });

  it('without a judge, AI-judged evaluations fail clearly; retry re-queues a FAILED one', async () => {
    const t = await setup();
    setLlmConfig({ baseUrl: undefined });
    const [e] = await t.evaluate([t.judged.id]);
    await drain();
    expect(await t.read(e!.id)).toMatchObject({ status: 'FAILED', error: 'no judge model is configured' });
    setLlmConfig({ baseUrl: judge.url });
    const retried = await t.api.post(`/evaluations/${e!.id}/retry`);
    expect(retried.body).toMatchObject({ status: 'PENDING', error: null });
    expect((await t.api.post(`/evaluations/${e!.id}/retry`)).status).toBe(409);
    await drain();
    expect((await t.read(e!.id)).status).toBe('SUCCESS');
    const other = await newTenant();
    expect((await other.api.post(`/evaluations/${e!.id}/retry`)).status).toBe(403);
  });

  it('an evaluation whose job failed on every receive ends FAILED naming the cause, its reserved credits released', async () => {
    const t = await setup();
    const [e] = await t.evaluate([t.judged.id]);
    deadLetters.length = 0;
    const judgeCalls = judge.requests.length;
    // Storage trouble after the credits are reserved: the session cannot be read, on every receive.
    const sessionKey = JSON.stringify(keys.session(t.session.id));
    const restore = failCommands(
      (c) => c instanceof GetCommand && JSON.stringify(c.input.Key) === sessionKey,
      () =>
        Object.assign(new Error('Throughput exceeds the current capacity of your table'), {
          name: 'ProvisionedThroughputExceededException',
        }),
    );
    try {
      await drain();
    } finally {
      restore();
    }
    expect(await t.read(e!.id)).toMatchObject({
      status: 'FAILED',
      error: 'scoring stopped: the evaluation failed 3 times (Throughput exceeds the current capacity of your table)',
      creditsUsed: 0,
      score: null,
    });
    expect((await t.api.get('/organization')).body).toMatchObject({
      spentCredits: 0,
      pendingCredits: 0,
      availableCredits: 1000,
    });
    expect(deadLetters).toEqual([]);
    expect(judge.requests).toHaveLength(judgeCalls);
    // a copy delivered after it settled changes nothing
    localQueue.messages.push({
      id: 'again',
      body: JSON.stringify({ kind: 'evaluation', sessionId: t.session.id, evaluationId: e!.id }),
      receiveCount: 2,
      visibleAt: 0,
    });
    await drain();
    expect(await t.read(e!.id)).toMatchObject({ status: 'FAILED', creditsUsed: 0 });
    expect((await t.api.get('/organization')).body).toMatchObject({ spentCredits: 0, pendingCredits: 0 });
  });

  it('credits reserved before the month turned are settled in the cycle they were reserved in', async () => {
    const t = await setup();
    const [e] = await t.evaluate([t.judged.id]);
    const [message] = localQueue.messages.splice(0);
    const record = (receives: number) =>
      ({
        Records: [{ messageId: 'm1', body: message!.body, attributes: { ApproximateReceiveCount: String(receives) } }],
      }) as unknown as SQSEvent;
    const lastSecond = new Date(Date.UTC(2026, 10, 30, 23, 59, 59));
    const nextMonth = new Date(Date.UTC(2026, 11, 1, 0, 0, 5));
    const now = vi.spyOn(clock, 'now').mockReturnValue(lastSecond);
    try {
      // first receive: the credits are reserved, then the session cannot be read
      const sessionKey = JSON.stringify(keys.session(t.session.id));
      const restore = failCommands(
        (c) => c instanceof GetCommand && JSON.stringify(c.input.Key) === sessionKey,
        () => new Error('Throughput exceeds the current capacity'),
      );
      try {
        expect(await evaluator(record(1))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
      } finally {
        restore();
      }
      const before = cycleOf(lastSecond);
      const after = cycleOf(nextMonth);
      expect(after).not.toBe(before);
      expect(await readSpend(keys.orgSpend(t.org.id, before), { consistent: true })).toMatchObject({
        pendingCredits: 4,
        spentCredits: 0,
      });
      // second receive, after midnight: settled in the cycle the credits were reserved in
      now.mockReturnValue(nextMonth);
      expect(await evaluator(record(2))).toEqual({ batchItemFailures: [] });
      expect(await t.read(e!.id)).toMatchObject({ status: 'SUCCESS', creditsUsed: 4 });
      expect(await readSpend(keys.orgSpend(t.org.id, before), { consistent: true })).toMatchObject({
        pendingCredits: 0,
        spentCredits: 4,
      });
      expect(await readSpend(keys.orgSpend(t.org.id, after), { consistent: true })).toMatchObject({
        pendingCredits: 0,
        spentCredits: 0,
      });
    } finally {
      now.mockRestore();
    }
  });

  it('fails an evaluation when the organization has no credits left', async () => {
    const t = await setup(3);
    const [e] = await t.evaluate([t.judged.id]);
    await drain();
    expect(await t.read(e!.id)).toMatchObject({
      status: 'FAILED',
      error: expect.stringMatching(/^no credits available/),
    });
    expect((await t.api.get('/organization')).body).toMatchObject({
      spentCredits: 0,
      pendingCredits: 0,
      availableCredits: 3,
    });
  });
});
