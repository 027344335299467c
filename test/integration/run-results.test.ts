import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { reply, startLlmStub, type LlmStub } from '../support/llm-server.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { drainRunQueue, runDeadLetters } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { pairedComparison } from '../../shared/domain/runs/comparison-stats.js';
import { studentT } from '../../shared/domain/runs/student-t.js';
import { parseXml, type XmlNode } from '../support/xml.js';

/**
 * Repetitions, pass rates, comparisons and JUnit. The agent answers `SCORE[x]` and
 * the judge stub scores that x, so every evaluation's score is chosen by the test: per run, per
 * case input, per call (a case's repetitions are its successive calls). `FAIL` makes the judge
 * answer 500, so the evaluation ends FAILED.
 */
let agent: TestAgentServer;
let llm: LlmStub;
/** run id → case input → the answers of its successive calls (the last one repeats). */
const script = new Map<string, Record<string, string[]>>();
const calls = new Map<string, number>();

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent((req, res) => {
    const { message, run } = req.json as { message: string; run: string };
    const key = `${run}#${message}`;
    const n = calls.get(key) ?? 0;
    calls.set(key, n + 1);
    const answers = script.get(run)?.[message] ?? ['SCORE[1]'];
    sendJson(res, 200, { reply: answers[Math.min(n, answers.length - 1)] });
  });
  llm = await startLlmStub((req) => {
    if (req.schemaName !== 'judge_score') return reply.raw(500, 'not a judge request');
    const output = req.messages.map((m) => m.content).join('\n');
    if (output.includes('FAIL')) return reply.raw(500, { error: { message: 'judge down' } });
    const m = /SCORE\[([0-9.]+)\]/.exec(output);
    return { score: Number(m?.[1] ?? 0), reason: `the answer said ${m?.[1] ?? 'nothing'}` };
  });
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

const drain = () => drainRunQueue((e) => runner(e) as Promise<unknown>);

const csvOf = (inputs: string[]) =>
  `input,expected_output\n${inputs.map((i) => `"${i.replace(/"/g, '""')}",x`).join('\n')}\n`;

/** A tenant with an agent version, a judged metric linked to a specification, and a test of `inputs`. */
async function setup(inputs: string[], options: { testName?: string } = {}) {
  const t = await newTenant({ monthlyCredits: null });
  const product = await createProduct(t.api);
  const conversation = await createConnection(t.api, product.id, {
    url: `${agent.url}/chat`,
    inputTemplate: '{"message": {{ input.user_message | dump }}, "run": "{{ run_id }}"}',
    outputMapping: { output: '$.reply' },
  });
  const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: conversation.id });
  const metric = async (name: string) => {
    const res = await t.api.post('/metrics', {
      name,
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: 'Score the number the answer gives.',
      evaluatorModelName: 'gpt-4o',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; name: string };
  };
  const judged = await metric('judged');
  const spec = (
    await t.api.post('/specifications', { productId: product.id, description: 'scores', type: 'CAPABILITY' })
  ).body;
  expect((await t.api.post(`/specifications/${spec.id}/metrics`, { metricIds: [judged.id] })).status).toBe(200);
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: options.testName ?? 'scored cases',
      type: 'QUALITY',
      uri: await uploadCsv(t.api, csvOf(inputs)),
      specificationId: spec.id,
    })
  ).body;
  expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
  const cases = (await t.api.get('/testCases', { testIds: test.id, sort: 'createdAt:asc' })).body as any[];
  const caseId = Object.fromEntries(cases.map((c) => [c.input, c.id as string]));
  /** Starts a run whose agent answers `answers` (case input → successive answers), drains it, returns it finished. */
  const run = async (answers: Record<string, (number | 'FAIL')[]>, body: Record<string, unknown> = {}) => {
    const res = await t.api.post('/runs', { versionId: version.id, testId: test.id, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    script.set(
      res.body.id,
      Object.fromEntries(
        Object.entries(answers).map(([input, xs]) => [input, xs.map((x) => (x === 'FAIL' ? 'FAIL' : `SCORE[${x}]`))]),
      ),
    );
    await drain();
    const done = (await t.api.get(`/runs/${res.body.id}`)).body;
    expect(done.status, JSON.stringify(done)).toBe('COMPLETED');
    return done;
  };
  return { ...t, product, version, spec, test, judged, metric, caseId, run };
}

describe('runs: repetitions and pass rates', () => {
  it('runs each case k times as separate sessions and reports pass rate, pass^k and pass@k at the threshold', async () => {
    const t = await setup(['always', 'sometimes', 'never', 'unscored']);
    const res = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      repetitions: 2,
      threshold: 0.6,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      repetitions: 2,
      threshold: 0.6,
      progress: { total: 8, pending: 8, running: 0, completed: 0, failed: 0 },
      metrics: [{ metricId: t.judged.id, passRate: null, passAllK: null, passAnyK: null }],
    });
    script.set(res.body.id, {
      always: ['SCORE[0.9]', 'SCORE[0.6]'],
      sometimes: ['SCORE[0.9]', 'SCORE[0.3]'],
      never: ['SCORE[0.2]', 'SCORE[0.1]'],
      unscored: ['FAIL'],
    });
    await drain();
    const done = (await t.api.get(`/runs/${res.body.id}`)).body;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      repetitions: 2,
      threshold: 0.6,
      progress: { total: 8, pending: 0, running: 0, completed: 8, failed: 0 },
    });
    const [m] = done.metrics;
    expect(m).toMatchObject({ evaluated: 6, failed: 2 });
    expect(m.score).toBeCloseTo(3 / 6, 12);
    // SUCCESS evaluations ≥ 0.6: 0.9, 0.6, 0.9 of six; over the three scored cases, one passes
    // both repetitions, two pass at least one ("unscored" had no SUCCESS evaluation: not counted).
    expect(m.passRate).toBeCloseTo(3 / 6, 12);
    expect(m.passAllK).toBeCloseTo(1 / 3, 12);
    expect(m.passAnyK).toBeCloseTo(2 / 3, 12);

    const sessions = (await t.api.get('/sessions', { runIds: res.body.id, sort: 'createdAt:asc' })).body as any[];
    expect(sessions).toHaveLength(8);
    const byCase = new Map<string, number[]>();
    for (const s of sessions) byCase.set(s.testCaseId, [...(byCase.get(s.testCaseId) ?? []), s.repetition]);
    expect([...byCase.values()].map((r) => r.sort())).toEqual([
      [1, 2],
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
    // The list shows the figures kept at the finish too (human labels and corrected scores are the read's alone).
    const listed = (await t.api.get('/runs', { ids: res.body.id })).body[0];
    expect(done.metrics[0]).toMatchObject({ labels: 0, corrected: null });
    expect(listed.metrics).toEqual(done.metrics.map(({ labels: _l, corrected: _c, ...rest }: any) => rest));
    expect(runDeadLetters).toEqual([]);
  });

  it('one repetition by default: threshold 0.5, a pass rate and no pass^k / pass@k', async () => {
    const t = await setup(['a', 'b']);
    const done = await t.run({ a: [0.5], b: [0.4] });
    expect(done).toMatchObject({ repetitions: 1, threshold: 0.5, progress: { total: 2 } });
    expect(done.metrics[0].passRate).toBe(0.5);
    expect(Object.keys(done.metrics[0])).not.toContain('passAllK');
    expect(Object.keys(done.metrics[0])).not.toContain('passAnyK');
    const sessions = (await t.api.get('/sessions', { runIds: done.id })).body as any[];
    expect(sessions.map((s) => s.repetition)).toEqual([1, 1]);
  });

  it('refuses repetitions or threshold out of range, and more than 5,000 sessions, naming the field and the numbers', async () => {
    const t = await setup(['a']);
    const post = async (body: Record<string, unknown>) => {
      const res = await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id, ...body });
      return { status: res.status, message: res.body.message as string };
    };
    for (const repetitions of [0, 11, 1.5, '2', null]) {
      const res = await post({ repetitions });
      expect(res.status, String(repetitions)).toBe(400);
      expect(res.message).toMatch(/^repetitions /);
    }
    for (const threshold of [-0.1, 1.01, '0.5', null]) {
      const res = await post({ threshold });
      expect(res.status, String(threshold)).toBe(400);
      expect(res.message).toMatch(/^threshold /);
    }
    const big = await setup(Array.from({ length: 501 }, (_, i) => `case ${i}`));
    const tooMany = await big.api.post('/runs', { versionId: big.version.id, testId: big.test.id, repetitions: 10 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe(
      'repetitions: a run may execute at most 5000 sessions (test cases × repetitions); this one has 501 test cases × 10 repetitions = 5010',
    );
    expect((await big.api.get('/runs')).headers['x-total-count']).toBe('0');
    expect(localRunQueue.messages).toHaveLength(0);
  });
});

describe('runs: comparison', () => {
  const LONG = `long ${'x'.repeat(300)}`;
  const inputs = ['a', 'b', 'c', 'd', 'e', LONG];

  it('pairs the cases of two finished runs by test case and tests each metric scored in both', async () => {
    const t = await setup(inputs);
    const tone = await t.metric('tone');
    const metricIds = [t.judged.id, tone.id];
    // The tone metric's judge prompt is the same as judged's, so it scores the same numbers.
    const base = await t.run({ a: [0.9], b: [0.8], c: [0.85], d: [0.95], e: ['FAIL'], [LONG]: [0.7] }, { metricIds });
    const run = await t.run(
      { a: [0.4, 0.6], b: [0.45], c: [0.6], d: [0.55], e: [0.5], [LONG]: [0.3] },
      { metricIds, repetitions: 2, testCaseIds: ['a', 'b', 'c', 'd', 'e'].map((i) => t.caseId[i]) },
    );
    const res = await t.api.get(`/runs/${run.id}/comparison`, { baseRunId: base.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const c = res.body;
    expect(c).toMatchObject({ runId: run.id, baseRunId: base.id, pairedBy: 'testCaseId', verdict: 'regressed' });
    expect(c.metrics.map((m: any) => m.name)).toEqual(['judged', 'tone']);
    // Case scores: the mean over the case's sessions (a: repetitions 0.4 and 0.6 → 0.5; b: 0.45 twice).
    const pairs = [
      { base: 0.9, run: 0.5 },
      { base: 0.8, run: 0.45 },
      { base: 0.85, run: 0.6 },
      { base: 0.95, run: 0.55 },
    ];
    const expected = pairedComparison(pairs, studentT);
    for (const m of c.metrics) {
      // e: scored in this run only (the base's judge failed); the long case: only the base ran it.
      expect(m).toMatchObject({ n: 4, onlyInBase: 1, onlyInRun: 1, verdict: 'regressed' });
      for (const k of [
        'baseScore',
        'score',
        'difference',
        'standardError',
        'pValue',
        'minimumDetectableEffect',
      ] as const)
        expect(m[k], k).toBeCloseTo(expected[k]!, 12);
      expect(m.confidenceInterval[0]).toBeCloseTo(expected.confidenceInterval![0], 12);
      expect(m.confidenceInterval[1]).toBeCloseTo(expected.confidenceInterval![1], 12);
      // Holm over two equal p-values: both 2p.
      expect(m.adjustedPValue).toBeCloseTo(Math.min(1, 2 * expected.pValue!), 12);
    }
    expect(expected.pValue! * 2).toBeLessThan(0.05);

    // The reverse comparison improves by as much.
    const back = (await t.api.get(`/runs/${base.id}/comparison`, { baseRunId: run.id })).body;
    expect(back.verdict).toBe('improved');
    expect(back.metrics[0].difference).toBeCloseTo(-expected.difference!, 12);
    expect(back.metrics[0]).toMatchObject({ onlyInBase: 1, onlyInRun: 1 });

    // A run against itself: nothing moved.
    const same = (await t.api.get(`/runs/${base.id}/comparison`, { baseRunId: base.id })).body;
    expect(same.verdict).toBe('no_significant_change');
    expect(same.metrics[0]).toMatchObject({
      n: 5,
      difference: 0,
      standardError: 0,
      pValue: 1,
      adjustedPValue: 1,
      confidenceInterval: [0, 0],
    });
  });

  it('lists the paired cases per metric: filters, sorts, pages, with inputs and session ids', async () => {
    const t = await setup(inputs);
    const base = await t.run({ a: [0.5], b: [0.5], c: [0.5], d: [0.5], e: [0.5], [LONG]: [0.5] });
    const run = await t.run(
      { a: [0.2, 0.4], b: [0.9], c: [0.5], d: [0.5], e: [0.1], [LONG]: [0.6] },
      { repetitions: 2 },
    );
    const list = async (q: Record<string, string | number> = {}) => {
      const res = await t.api.get(`/runs/${run.id}/comparison/cases`, { baseRunId: base.id, ...q });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { rows: res.body as any[], total: res.headers['x-total-count'] };
    };
    const all = await list();
    expect(all.total).toBe('6');
    const inputOf = Object.fromEntries(Object.entries(t.caseId).map(([input, id]) => [id, input]));
    // difference ascending; c and d tie at 0, ordered by test case id.
    expect(all.rows.map((r) => inputOf[r.testCaseId])).toEqual([
      'e',
      'a',
      ...['c', 'd'].sort((x, y) => (t.caseId[x]! < t.caseId[y]! ? -1 : 1)),
      LONG,
      'b',
    ]);
    const a = all.rows.find((r) => r.testCaseId === t.caseId.a)!;
    expect(a).toMatchObject({ metricId: t.judged.id, metricName: 'judged', input: 'a', baseScore: 0.5 });
    expect(a.score).toBeCloseTo(0.3, 12);
    expect(a.difference).toBeCloseTo(-0.2, 12);
    expect(a.baseSessionIds).toHaveLength(1);
    expect(a.sessionIds).toHaveLength(2);
    const sessions = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
    const mine = sessions.filter((s) => s.testCaseId === t.caseId.a).sort((x, y) => x.repetition - y.repetition);
    expect(a.sessionIds).toEqual(mine.map((s) => s.id));
    expect(all.rows.find((r) => r.testCaseId === t.caseId[LONG])!.input).toBe(LONG.slice(0, 200));

    expect((await list({ changed: 'regressed' })).rows.map((r) => inputOf[r.testCaseId])).toEqual(['e', 'a']);
    expect(
      (await list({ changed: 'improved', sort: 'difference:desc' })).rows.map((r) => inputOf[r.testCaseId]),
    ).toEqual(['b', LONG]);
    expect((await list({ changed: 'unchanged' })).total).toBe('2');
    const byId = await list({ sort: 'testCaseId:desc', limit: 2, offset: 1 });
    expect(byId.total).toBe('6');
    expect(byId.rows.map((r) => r.testCaseId)).toEqual(Object.values(t.caseId).sort().reverse().slice(1, 3));
    expect((await list({ metricIds: 'met_other' })).total).toBe('0');
    expect((await list({ metricIds: t.judged.id })).total).toBe('6');
  });

  it('refuses a missing, malformed, unknown, foreign or unfinished run with a 4xx naming it', async () => {
    const t = await setup(['a', 'b']);
    const other = await setup(['a']);
    const done = await t.run({ a: [0.5], b: [0.5] });
    const theirs = await other.run({ a: [0.5] });
    const stillPending = (await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id })).body;
    localRunQueue.messages.length = 0; // its fan-out never runs: it stays PENDING
    const started = (await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id })).body;
    const fanout = localRunQueue.messages.shift()!;
    await runner({ Records: [{ messageId: fanout.id, body: fanout.body }] } as SQSEvent);
    localRunQueue.messages.length = 0; // its sessions never start: it stays RUNNING
    expect((await t.api.get(`/runs/${started.id}`)).body.status).toBe('RUNNING');

    for (const path of [`/runs/${done.id}/comparison`, `/runs/${done.id}/comparison/cases`]) {
      const get = async (id: string, query: Record<string, string>) => {
        const res = await t.api.get(path.replace(done.id, id), query);
        return { status: res.status, message: res.body.message as string };
      };
      expect(await get(done.id, {})).toEqual({ status: 400, message: 'baseRunId is required' });
      expect((await get(done.id, { baseRunId: 'not an id!' })).status).toBe(400);
      expect((await get(done.id, { baseRunId: 'not an id!' })).message).toMatch(/^baseRunId /);
      expect(await get(done.id, { baseRunId: 'run_nope' })).toEqual({
        status: 404,
        message: 'baseRunId: run run_nope not found',
      });
      expect(await get('run_nope', { baseRunId: done.id })).toEqual({ status: 404, message: 'run run_nope not found' });
      expect(await get(done.id, { baseRunId: theirs.id })).toEqual({
        status: 403,
        message: `baseRunId: run ${theirs.id} belongs to another organization`,
      });
      expect((await get(theirs.id, { baseRunId: done.id })).status).toBe(403);
      expect(await get(done.id, { baseRunId: stillPending.id })).toEqual({
        status: 409,
        message: `baseRunId: run ${stillPending.id} is PENDING; only finished runs (COMPLETED, FAILED or CANCELLED) can be compared`,
      });
      expect(await get(started.id, { baseRunId: done.id })).toEqual({
        status: 409,
        message: `run ${started.id} is RUNNING; only finished runs (COMPLETED, FAILED or CANCELLED) can be compared`,
      });
    }
    const cases = async (query: Record<string, string>) => {
      const res = await t.api.get(`/runs/${done.id}/comparison/cases`, { baseRunId: done.id, ...query });
      return { status: res.status, message: res.body.message as string };
    };
    expect(await cases({ changed: 'worse' })).toEqual({
      status: 400,
      message: 'changed must be one of: regressed, improved, unchanged, any',
    });
    expect(await cases({ sort: 'score:asc' })).toEqual({
      status: 400,
      message: 'sort must be one of: difference:asc, difference:desc, testCaseId:asc, testCaseId:desc',
    });
    expect((await cases({ limit: '0' })).message).toBe('limit must be at least 1');
    expect((await cases({ colour: 'red' })).message).toBe("unknown query parameter 'colour'");
    expect((await cases({})).status).toBe(200);
  });
});

// ---------- JUnit ----------

const counts = (n: XmlNode) => ({
  tests: Number(n.attributes.tests),
  failures: Number(n.attributes.failures),
  errors: Number(n.attributes.errors),
});

describe('runs: JUnit', () => {
  const EVIL = `<b>Tom & "Jerry"</b> it's ]]> ${'y'.repeat(120)}`;

  it('a suite of the sessions, a suite per metric with a case per scored case; failures below the threshold, errors for failed evaluations; exact counts and escaped texts', async () => {
    const t = await setup(['passes', 'fails', 'errs', EVIL], { testName: 'a & b <suite>' });
    const tone = await t.metric('tone');
    const metricIds = [t.judged.id, tone.id];
    const base = await t.run(
      { passes: [0.95], fails: [0.61], errs: [0.9], [EVIL]: [0.5] },
      { metricIds, threshold: 0.6 },
    );
    const run = await t.run(
      { passes: [0.65], fails: [0.3], errs: ['FAIL'], [EVIL]: [0.2] },
      { metricIds, threshold: 0.6, name: 'nightly "evil" <run>' },
    );

    const res = await t.api.get(`/runs/${run.id}/junit`);
    expect(res.status, String(res.body)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml\b/);
    const root = parseXml(res.body);
    expect(root.name).toBe('testsuites');
    expect(root.attributes.name).toBe('nightly "evil" <run>');
    // Every session a test case (all 4 COMPLETED: a failed evaluation is not a failed session), then the metrics.
    expect(counts(root)).toEqual({ tests: 12, failures: 4, errors: 2 });
    expect(root.children.map((s) => s.attributes.name)).toEqual(['sessions', 'judged', 'tone']);
    const [sessions, ...metricSuites] = root.children;
    expect(counts(sessions!)).toEqual({ tests: 4, failures: 0, errors: 0 });
    expect(sessions!.children.map((c) => c.attributes)).toEqual(
      ['passes', 'fails', 'errs', EVIL.slice(0, 100)].map((name) => ({ classname: 'a & b <suite>', name })),
    );
    for (const suite of metricSuites) {
      expect(counts(suite)).toEqual({ tests: 4, failures: 2, errors: 1 });
      const cases = suite.children;
      expect(cases.every((c) => c.name === 'testcase' && c.attributes.classname === 'a & b <suite>')).toBe(true);
      // In file order; the evil input round-trips exactly, cut at 100 characters.
      expect(cases.map((c) => c.attributes.name)).toEqual(['passes', 'fails', 'errs', EVIL.slice(0, 100)]);
      const [passes, fails, errs, evil] = cases;
      expect(passes!.children).toEqual([]);
      expect(fails!.children.map((c) => c.name)).toEqual(['failure']);
      expect(fails!.children[0]!.attributes.message).toBe('score 0.3 is below the threshold 0.6: the answer said 0.3');
      expect(fails!.children[0]!.text).toContain(`test case ${t.caseId.fails}`);
      expect(errs!.children.map((c) => c.name)).toEqual(['error']);
      expect(errs!.children[0]!.attributes.message).toMatch(/^no SUCCESS evaluation: /);
      expect(evil!.children[0]!.attributes.message).toBe('score 0.2 is below the threshold 0.6: the answer said 0.2');
    }
    // Nothing of the user's text became markup.
    expect(res.body).not.toContain('<b>');
    expect(res.body).not.toContain('<suite>');

    // With a base run: one more suite, a test per compared metric, failing when it regressed.
    const compared = await t.api.get(`/runs/${run.id}/junit`, { baseRunId: base.id });
    expect(compared.status).toBe(200);
    const withComparison = parseXml(compared.body);
    expect(withComparison.children.map((s) => s.attributes.name)).toEqual(['sessions', 'judged', 'tone', 'comparison']);
    expect(counts(withComparison)).toEqual({ tests: 14, failures: 6, errors: 2 });
    const suite = withComparison.children[3]!;
    expect(counts(suite)).toEqual({ tests: 2, failures: 2, errors: 0 });
    const comparison = (await t.api.get(`/runs/${run.id}/comparison`, { baseRunId: base.id })).body;
    expect(comparison.verdict).toBe('regressed');
    const [judged] = comparison.metrics;
    const failure = suite.children[0]!.children[0]!;
    expect(suite.children[0]!.attributes).toEqual({ classname: 'comparison', name: 'judged' });
    const fmt = (x: number) => String(Number(x.toPrecision(4)));
    expect(failure.attributes.message).toBe(
      `difference ${fmt(judged.difference)} (95% CI [${fmt(judged.confidenceInterval[0])}, ${fmt(judged.confidenceInterval[1])}]), adjusted p ${fmt(judged.adjustedPValue)}`,
    );
    // The other way round nothing regressed: the comparison suite passes.
    const back = parseXml((await t.api.get(`/runs/${base.id}/junit`, { baseRunId: run.id })).body);
    expect(counts(back.children[3]!)).toEqual({ tests: 2, failures: 0, errors: 0 });
  });

  it('refuses an unfinished run, another organization’s and unknown runs, and a bad or unfinished baseRunId', async () => {
    const t = await setup(['a']);
    const other = await setup(['a']);
    const done = await t.run({ a: [0.5] });
    const theirs = await other.run({ a: [0.5] });
    const pending = (await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id })).body;
    localRunQueue.messages.length = 0;
    const get = async (id: string, query: Record<string, string> = {}) => {
      const res = await t.api.get(`/runs/${id}/junit`, query);
      return { status: res.status, message: res.body.message as string };
    };
    expect(await get(pending.id)).toEqual({
      status: 409,
      message: `run ${pending.id} is PENDING; only finished runs (COMPLETED, FAILED or CANCELLED) have a JUnit report`,
    });
    expect((await get(theirs.id)).status).toBe(403);
    expect((await get('run_nope')).status).toBe(404);
    expect((await get(done.id, { baseRunId: 'bad id' })).message).toMatch(/^baseRunId /);
    expect(await get(done.id, { baseRunId: theirs.id })).toEqual({
      status: 403,
      message: `baseRunId: run ${theirs.id} belongs to another organization`,
    });
    expect((await get(done.id, { baseRunId: pending.id })).status).toBe(409);
    expect((await get(done.id, { other: 'x' })).message).toBe("unknown query parameter 'other'");
  });
});
