import { localQueue } from '../../infra/local/queues.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';

const drain = (duplicate = false) => drainLocalQueue((e) => evaluator(e) as Promise<unknown>, { duplicate });

beforeEach(() => {
  localQueue.messages.length = 0;
});

const checkMetric = (check: Record<string, unknown>, o: Record<string, unknown> = {}) => ({
  name: 'mentions the refund policy',
  source: 'DETERMINISTIC',
  check,
  ...o,
});

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const metric = async (check: Record<string, unknown>, o: Record<string, unknown> = {}) => {
    const res = await t.api.post('/metrics', checkMetric(check, o));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const session = async (
    turns: { input: string; output: string | null; retrievalContext?: string[] }[],
    o: Record<string, unknown> = {},
  ) => {
    const s = (await t.api.post('/sessions', { versionId: version.id, ...o })).body;
    for (const turn of turns)
      expect((await t.api.post('/inferenceResults', { sessionId: s.id, ...turn })).status).toBe(201);
    return s;
  };
  return { ...t, product, version, metric, session };
}

describe('check metrics: records', () => {
  it('creates an organization DETERMINISTIC metric with its check; evaluationParams is the target; reads, lists and filters it', async () => {
    const t = await setup();
    const m = await t.metric({ type: 'contains', value: 'refund policy', caseSensitive: false }, { tags: ['guard'] });
    expect(m).toMatchObject({
      organizationId: t.org.id,
      source: 'DETERMINISTIC',
      parentMetricId: null,
      evaluationParams: ['actual_output'],
      check: { type: 'contains', target: 'actual_output', value: 'refund policy', caseSensitive: false },
      judgePrompt: null,
      evaluatorModelName: null,
      legacyAt: null,
      metricGroupId: expect.stringMatching(/^mgrp_/),
    });
    expect((await t.api.get(`/metrics/${m.id}`)).body).toEqual(m);
    const onExpected = await t.metric(
      { type: 'equals', value: 'ok', target: 'expected_output' },
      { name: 'matches the reference' },
    );
    expect(onExpected).toMatchObject({
      evaluationParams: ['expected_output'],
      check: { type: 'equals', target: 'expected_output', value: 'ok', caseSensitive: true },
    });
    const judged = (
      await t.api.post('/metrics', {
        name: 'polite',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['actual_output'],
        judgePrompt: 'p',
        evaluatorModelName: 'gpt-4o-mini',
      })
    ).body;
    expect(judged.check).toBeNull();
    expect((await t.api.get('/metrics/met_is_json')).body).toMatchObject({
      organizationId: null,
      check: null,
      source: 'DETERMINISTIC',
    });

    const ids = async (q: Record<string, string | boolean>) =>
      ((await t.api.get('/metrics', { includeDefault: false, ...q })).body as { id: string }[]).map((x) => x.id).sort();
    expect(await ids({ sources: 'DETERMINISTIC' })).toEqual([m.id, onExpected.id].sort());
    expect(await ids({ monitorable: true })).toEqual([m.id, judged.id].sort());
    expect(await ids({ monitorable: false })).toEqual([onExpected.id]);
    expect(await ids({ tags: 'guard' })).toEqual([m.id]);
    expect(await ids({ organizationIds: t.org.id, name: 'REFUND' })).toEqual([m.id]);
    expect(
      (await t.api.get('/metrics', { sources: 'DETERMINISTIC', includeOwned: false, limit: 1000 })).body.every(
        (x: { organizationId: string | null }) => x.organizationId === null,
      ),
    ).toBe(true);
  });

  it.each([
    [
      { name: 'x', source: 'DETERMINISTIC', evaluationParams: ['actual_output'] },
      'check is required when source is DETERMINISTIC',
    ],
    [
      checkMetric({ type: 'contains', value: 'x' }, { evaluationParams: ['actual_output'] }),
      'evaluationParams must not be set with a check: it is derived from check.target',
    ],
    [
      checkMetric({ type: 'is_json' }, { judgePrompt: 'p' }),
      'judgePrompt must not be set when source is DETERMINISTIC',
    ],
    [
      checkMetric(
        { type: 'is_json' },
        { source: 'PARTIAL_PROMPT', judgePrompt: 'p', evaluatorModelName: 'gpt-4o-mini' },
      ),
      'check must not be set when source is PARTIAL_PROMPT; a check is a DETERMINISTIC metric',
    ],
    [{ name: 'x', source: 'SELF_HOSTED' }, 'evaluationParams is required'],
    [
      checkMetric({ type: 'matches' }),
      'check.type must be one of: contains, not_contains, equals, starts_with, ends_with, contains_any, contains_all, regex, is_json, json_schema, length',
    ],
    [checkMetric({ value: 'x' }), 'check.type is required'],
    [
      checkMetric({ type: 'contains', value: 'x', target: 'context' }),
      'check.target must be one of: actual_output, input, expected_output, retrieval_context',
    ],
    [checkMetric({ type: 'contains', value: 'x', flags: 'g' }), "unknown field 'check.flags'"],
    [checkMetric({ type: 'contains' }), 'check.value is required when check.type is contains'],
    [checkMetric({ type: 'contains', value: '' }), 'check.value must not be empty'],
    [checkMetric({ type: 'contains', value: 7 }), 'check.value must be a string'],
    [checkMetric({ type: 'contains', value: 'x', caseSensitive: 'no' }), 'check.caseSensitive must be a boolean'],
    [checkMetric({ type: 'contains_any', values: [] }), 'check.values must have at least 1 item'],
    [
      checkMetric({ type: 'contains_any', values: Array.from({ length: 101 }, (_, i) => `v${i}`) }),
      'check.values must have at most 100 items',
    ],
    [checkMetric({ type: 'contains_all', values: ['a', 'b', 'c', ''] }), 'check.values[3] must not be empty'],
    [
      checkMetric({ type: 'contains_any', values: Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(1000, 'x')) }),
      'check must be at most 32768 bytes as JSON',
    ],
    [checkMetric({ type: 'contains_all', values: ['a', 'a'] }), 'check.values must not contain duplicates'],
    [
      checkMetric({ type: 'contains_all', values: ['a'], value: 'b' }),
      'check.value must not be set when check.type is contains_all',
    ],
    [checkMetric({ type: 'length' }), 'check.min or check.max is required when check.type is length'],
    [checkMetric({ type: 'length', min: -1 }), 'check.min must be at least 0'],
    [checkMetric({ type: 'length', max: 1.5 }), 'check.max must be an integer'],
    [checkMetric({ type: 'length', min: 10, max: 2 }), 'check.min must not be greater than check.max (10 > 2)'],
    [
      checkMetric({ type: 'regex', value: '[' }),
      /^check\.value is not a valid ECMAScript regular expression \(u flag\): Invalid regular expression/,
    ],
    [checkMetric({ type: 'regex', value: '(a+)+$' }), /^check\.value can backtrack catastrophically/],
    [checkMetric({ type: 'json_schema' }), 'check.schema is required when check.type is json_schema'],
    [checkMetric({ type: 'json_schema', schema: 'object' }), 'check.schema must be an object or a boolean'],
    [
      checkMetric({ type: 'json_schema', schema: { type: 'object', properties: { n: { type: 'int' } } } }),
      /^check\.schema is not a valid JSON Schema \(draft 2020-12\): check\.schema\.properties\.n\.type must be one of/,
    ],
    [
      checkMetric({ type: 'json_schema', schema: { $schema: 'http://json-schema.org/draft-07/schema#' } }),
      'check.schema.$schema must be "https://json-schema.org/draft/2020-12/schema" (draft 2020-12) or absent',
    ],
  ])('refuses %j with a 400 naming the field', async (body, message) => {
    const t = await setup();
    const res = await t.api.post('/metrics', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    if (typeof message === 'string') expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
    expect((await t.api.get('/metrics', { includeDefault: false })).body).toEqual([]);
  });

  it('a new check is a revision: it joins the family and the parent becomes legacy; PATCH cannot change a check', async () => {
    const t = await setup();
    const root = await t.metric({ type: 'contains', value: 'refund' });
    const patched = await t.api.patch(`/metrics/${root.id}`, { check: { type: 'contains', value: 'refund policy' } });
    expect(patched.status).toBe(400);
    expect(patched.body.message).toBe(
      'check cannot be changed by PATCH; create a revision with parentMetricId instead',
    );
    expect((await t.api.patch(`/metrics/${root.id}`, { description: 'guards refunds' })).body).toMatchObject({
      description: 'guards refunds',
      check: root.check,
    });
    const rev = await t.metric(
      { type: 'regex', value: '\\brefund polic(?:y|ies)\\b', caseSensitive: false },
      { parentMetricId: root.id },
    );
    expect(rev).toMatchObject({
      parentMetricId: root.id,
      metricGroupId: root.metricGroupId,
      check: { type: 'regex', caseSensitive: false },
      legacyAt: null,
    });
    expect((await t.api.get(`/metrics/${root.id}`)).body).toMatchObject({
      legacyAt: rev.createdAt,
      check: { type: 'contains', value: 'refund' },
    });
    // a check can also revise a predefined family; the predefined metric stays as it is
    const own = await t.metric({ type: 'is_json', target: 'input' }, { parentMetricId: 'met_is_json' });
    expect(own).toMatchObject({ metricGroupId: 'mgrp_is_json', organizationId: t.org.id, evaluationParams: ['input'] });
    expect((await t.api.get('/metrics/met_is_json')).body.legacyAt).toBeNull();
  });

  it("keeps check metrics to their organization: another organization's is 403, an unknown one 404", async () => {
    const t = await setup();
    const other = await setup();
    const theirs = await other.metric({ type: 'contains', value: 'secret' });
    expect((await t.api.get(`/metrics/${theirs.id}`)).status).toBe(403);
    expect((await t.api.patch(`/metrics/${theirs.id}`, { name: 'x' })).status).toBe(403);
    expect((await t.api.del(`/metrics/${theirs.id}`)).status).toBe(403);
    expect((await t.api.post('/metrics', checkMetric({ type: 'is_json' }, { parentMetricId: theirs.id }))).status).toBe(
      403,
    );
    expect((await t.api.get('/metrics', { includeDefault: false })).body).toEqual([]);
    expect((await t.api.get('/metrics/met_unknown_check')).status).toBe(404);
    const s = await t.session([{ input: 'q', output: 'secret' }]);
    const res = await t.api.post('/evaluations', { sessionId: s.id, metricIds: [theirs.id] });
    expect(res.status).toBe(403);
    expect(localQueue.messages).toHaveLength(0);
  });
});

describe('check metrics: scoring', () => {
  it('POST /evaluations scores each check in code, once however often its job is delivered, with reasons that say where', async () => {
    const t = await setup();
    const policy = await t.metric({ type: 'contains', value: 'refund policy', caseSensitive: false });
    const hostname = await t.metric(
      { type: 'not_contains', value: 'corp.internal' },
      { name: 'no internal hostnames' },
    );
    const json = await t.metric(
      { type: 'json_schema', schema: { type: 'object', required: ['answer'] } },
      { name: 'answer object' },
    );
    const short = await t.metric({ type: 'length', max: 20, target: 'input' }, { name: 'short question' });
    const sources = await t.metric(
      { type: 'contains_any', values: ['30 days', 'thirty days'], target: 'retrieval_context' },
      { name: 'cites the window' },
    );
    const reference = await t.metric({ type: 'equals', value: 'x', target: 'expected_output' }, { name: 'reference' });
    const s = await t.session([
      {
        input: 'Can I get my money back?',
        output: 'Our Refund Policy: see wiki.corp.internal/refunds',
        retrievalContext: ['Shipping is free.', 'Refunds within 30 days.'],
      },
    ]);
    const res = await t.api.post('/evaluations', {
      sessionId: s.id,
      metricIds: [policy.id, hostname.id, json.id, short.id, sources.id, reference.id],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.find((e: { metricId: string }) => e.metricId === reference.id)).toMatchObject({
      status: 'SKIPPED',
      error: 'missing expected_output: the session has no test case',
    });
    await drain(true);
    const evals = (await t.api.get('/evaluations', { sessionIds: s.id })).body as {
      metricId: string;
      status: string;
      score: number;
      reason: string;
      creditsUsed: number;
    }[];
    expect(evals).toHaveLength(6);
    const by = Object.fromEntries(evals.map((e) => [e.metricId, e]));
    expect(by[policy.id]).toMatchObject({
      status: 'SUCCESS',
      score: 1,
      creditsUsed: 0,
      reason:
        'mentions the refund policy: found "refund policy" in actual_output at character 5: "Our Refund Policy: see wiki.corp.inte…"',
    });
    expect(by[hostname.id]).toMatchObject({
      status: 'SUCCESS',
      score: 0,
      reason: expect.stringMatching(
        /^no internal hostnames: found the forbidden "corp\.internal" in actual_output at character 29: /,
      ),
    });
    expect(by[json.id]).toMatchObject({
      status: 'SUCCESS',
      score: 0,
      reason: 'answer object: actual_output is not JSON: unexpected "O" at character 1 (expected a JSON value)',
    });
    expect(by[short.id]).toMatchObject({
      status: 'SUCCESS',
      score: 0,
      reason: 'short question: input has 24 characters, more than the maximum 20',
    });
    expect(by[sources.id]).toMatchObject({
      status: 'SUCCESS',
      score: 1,
      reason:
        'cites the window: found 1 of 2 values in retrieval_context: "30 days" in retrieval_context[1] at character 16',
    });
    const org = (await t.api.get('/organization')).body;
    expect(org).toMatchObject({ spentCredits: 0 });
  });

  it('the compatibility route: a check on expected_output cannot be satisfied by a production session, and can by a test session', async () => {
    const t = await setup();
    const onExpected = await t.metric(
      { type: 'contains', value: 'ships', target: 'expected_output' },
      { name: 'reference mentions shipping' },
    );
    const onOutput = await t.metric({ type: 'is_json' }, { name: 'json answer' });
    const production = await t.session([{ input: 'Where is my order?', output: '{"eta": "tomorrow"}' }]);
    const entries = (await t.api.get(`/sessions/${production.id}/metricCompatibility`)).body as Record<
      string,
      unknown
    >[];
    expect(entries.find((e) => e.id === onExpected.id)).toEqual({
      id: onExpected.id,
      name: 'reference mentions shipping',
      isCompatible: false,
      relevance: 'none',
      source: 'DETERMINISTIC',
      description: null,
      incompatibilityReason: 'missing expected_output: the session has no test case',
    });
    expect(entries.find((e) => e.id === onOutput.id)).toMatchObject({
      isCompatible: true,
      incompatibilityReason: null,
    });

    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'cases', type: 'QUALITY' })).body;
    const tc = (
      await t.api.post('/testCases', {
        testId: test.id,
        input: 'Where is my order?',
        expectedOutput: 'It ships today.',
      })
    ).body;
    const testSession = await t.session([{ input: 'Where is my order?', output: 'It ships today.' }], {
      testCaseId: tc.id,
    });
    const forTest = (await t.api.get(`/sessions/${testSession.id}/metricCompatibility`)).body as Record<
      string,
      unknown
    >[];
    expect(forTest.find((e) => e.id === onExpected.id)).toMatchObject({
      isCompatible: true,
      incompatibilityReason: null,
    });
    await t.api.post('/evaluations', { sessionId: testSession.id, metricIds: [onExpected.id] });
    await drain();
    expect((await t.api.get('/evaluations', { sessionIds: testSession.id })).body[0]).toMatchObject({
      status: 'SUCCESS',
      score: 1,
      reason: 'reference mentions shipping: found "ships" in expected_output at character 4: "It ships today."',
    });
  });

  it('a session without the target skips the evaluation, saying what is missing', async () => {
    const t = await setup();
    const m = await t.metric({ type: 'starts_with', value: 'Hello' });
    const s = await t.session([{ input: 'hi', output: null }]);
    const created = (await t.api.post('/evaluations', { sessionId: s.id, metricIds: [m.id] })).body[0];
    expect(created).toMatchObject({ status: 'SKIPPED', error: 'missing actual_output: no turn has an output' });
  });
});
