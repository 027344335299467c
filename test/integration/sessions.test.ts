import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion } from '../support/fixtures.js';

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api, { description: 'Order support bot', capabilities: ['track orders'] });
  const version = await createVersion(t.api, product.id);
  const session = async (o: Record<string, unknown> = {}) => {
    const res = await t.api.post('/sessions', { versionId: version.id, ...o });
    expect(res.status).toBe(201);
    return res.body;
  };
  const turn = async (sessionId: string, input = 'Where is my order?', output: string | null = 'Tomorrow.') =>
    (await t.api.post('/inferenceResults', { sessionId, input, output })).body;
  return { ...t, product, version, session, turn };
}

describe('sessions', () => {
  it('creates production and test sessions; plain-text context becomes {value}', async () => {
    const t = await setup();
    const prod = await t.session({ context: 'VIP customer', customId: 'c-1', metadata: { channel: 'web' } });
    expect(prod).toMatchObject({
      isProduction: true,
      testCaseId: null,
      status: 'PENDING',
      context: { value: 'VIP customer' },
      customId: 'c-1',
      productId: t.product.id,
    });
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'x', type: 'QUALITY' })).body;
    const tc = (await t.api.post('/testCases', { testId: test.id, input: 'hello', expectedOutput: 'hi' })).body;
    const testSession = await t.session({ testCaseId: tc.id });
    expect(testSession).toMatchObject({ isProduction: false, testCaseId: tc.id, testId: test.id });
    expect((await t.api.get(`/sessions/${prod.id}`)).body).toEqual(prod);
    expect((await t.api.get('/tests', { versionIds: t.version.id })).body.map((x: { id: string }) => x.id)).toEqual([
      test.id,
    ]);
  });

  it('validates and keeps sessions to their organization', async () => {
    const t = await setup();
    const other = await setup();
    expect((await t.api.post('/sessions', {})).body.message).toBe('versionId is required');
    expect((await t.api.post('/sessions', { versionId: 'ver_nope' })).status).toBe(400);
    expect((await t.api.post('/sessions', { versionId: other.version.id })).status).toBe(403);
    expect((await t.api.post('/sessions', { versionId: t.version.id, isProduction: false })).body.message).toBe(
      "unknown field 'isProduction'",
    );
    const otherTest = (await other.api.post('/tests', { productId: other.product.id, name: 'x', type: 'QUALITY' }))
      .body;
    const otherCase = (await other.api.post('/testCases', { testId: otherTest.id, input: 'x' })).body;
    expect((await t.api.post('/sessions', { versionId: t.version.id, testCaseId: otherCase.id })).status).toBe(403);
    const s = await other.session();
    expect((await t.api.get(`/sessions/${s.id}`)).status).toBe(403);
    expect((await t.api.patch(`/sessions/${s.id}`, { status: 'COMPLETED' })).status).toBe(403);
    expect((await t.api.get('/sessions/sess_nope')).status).toBe(404);
    expect((await t.api.get('/sessions')).body.message).toBe(
      'one of versionIds, testIds, testCaseIds, customIds or runIds is required',
    );
  });

  it('lists by version, custom id and filters', async () => {
    const t = await setup();
    const a = await t.session({ customId: 'alpha' });
    const b = await t.session();
    await t.api.patch(`/sessions/${b.id}`, { status: 'FAILED', error: 'agent timed out' });
    const ids = async (q: Record<string, string | boolean>) =>
      ((await t.api.get('/sessions', q)).body as { id: string }[]).map((s) => s.id).sort();
    expect(await ids({ versionIds: t.version.id })).toEqual([a.id, b.id].sort());
    expect(await ids({ customIds: 'alpha' })).toEqual([a.id]);
    expect(await ids({ versionIds: t.version.id, statuses: 'FAILED' })).toEqual([b.id]);
    expect(await ids({ versionIds: t.version.id, isProduction: false })).toEqual([]);
  });

  it('closes with COMPLETED or FAILED, keeps the error, canonicalises recordingUri, soft-deletes', async () => {
    const t = await setup();
    const s = await t.session({ customId: 'x' });
    const failed = await t.api.patch(`/sessions/${s.id}`, {
      status: 'FAILED',
      error: 'connection reset',
      recordingUri: 'https://rec.s3.us-east-1.amazonaws.com/calls/1.wav?X-Amz-Signature=abc',
    });
    expect(failed.body).toMatchObject({
      status: 'FAILED',
      error: 'connection reset',
      recordingUri: 's3://rec/calls/1.wav',
      closedAt: expect.any(String),
    });
    expect((await t.api.patch(`/sessions/${s.id}`, { status: 'PENDING' })).body.message).toBe(
      'status must be one of: COMPLETED, FAILED',
    );
    expect((await t.api.get(`/sessions/${s.id}`)).body.error).toBe('connection reset');
    expect((await t.api.del(`/sessions/${s.id}`)).status).toBe(200);
    expect((await t.api.get('/sessions', { customIds: 'x' })).body).toEqual([]);
    expect((await t.api.patch(`/sessions/${s.id}`, { metadata: {} })).status).toBe(404);
    expect((await t.api.get(`/sessions/${s.id}`)).body.deletedAt).toEqual(expect.any(String));
  });
});

describe('turns (inference results)', () => {
  it('assigns indexes in arrival order without gaps or duplicates under 20 concurrent writers', async () => {
    const t = await setup();
    const s = await t.session();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.api.post('/inferenceResults', { sessionId: s.id, input: `q${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(results.map((r) => r.body.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const list = await t.api.get('/inferenceResults', { sessionIds: s.id });
    expect(list.body.map((x: { index: number }) => x.index)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const session = (await t.api.get(`/sessions/${s.id}`)).body;
    expect(session).toMatchObject({ turnCount: 20, lastTurnAt: expect.any(String) });
  });

  it('folds a batch of messages into turns, all or nothing', async () => {
    const t = await setup();
    const s = await t.session();
    const res = await t.api.post('/inferenceResults/batch', {
      sessionId: s.id,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Track 42', retrievalContext: ['order 42: shipped'] },
        { role: 'assistant', content: 'Shipped.' },
        { role: 'assistant', content: 'Anything else?' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.map((x: { index: number; input: string; output: string }) => [x.index, x.input, x.output])).toEqual(
      [
        [1, 'Hi', 'Hello!'],
        [2, 'Track 42', 'Shipped.\nAnything else?'],
      ],
    );
    expect((await t.api.post('/inferenceResults/batch', { sessionId: s.id, messages: [] })).status).toBe(400);
    expect(
      (await t.api.post('/inferenceResults/batch', { sessionId: s.id, messages: [{ role: 'system', content: 'x' }] }))
        .status,
    ).toBe(400);
  });

  it('limits input and output to 250,000 characters, reads, patches and guards tenancy', async () => {
    const t = await setup();
    const other = await setup();
    const s = await t.session();
    expect((await t.api.post('/inferenceResults', { sessionId: s.id, input: 'x'.repeat(250_000) })).status).toBe(201);
    expect((await t.api.post('/inferenceResults', { sessionId: s.id, input: 'x'.repeat(250_001) })).body.message).toBe(
      'input must have at most 250000 characters',
    );
    const turn = await t.turn(s.id);
    expect((await t.api.get(`/inferenceResults/${turn.id}`)).body).toEqual(turn);
    const patched = await t.api.patch(`/inferenceResults/${turn.id}`, {
      output: 'Monday.',
      usage: { outputTokens: 12 },
    });
    expect(patched.body).toMatchObject({ output: 'Monday.', usage: { outputTokens: 12, inputTokens: 0 } });
    expect((await other.api.get(`/inferenceResults/${turn.id}`)).status).toBe(403);
    expect((await other.api.post('/inferenceResults', { sessionId: s.id, input: 'x' })).status).toBe(403);
    expect((await t.api.get('/inferenceResults/inf_nope')).status).toBe(404);
  });
});

describe('spans (traces)', () => {
  it('creates spans with trace_ ids, derives latency, checks parents and refuses duplicates', async () => {
    const t = await setup();
    const s = await t.session();
    const turn = await t.turn(s.id);
    const root = await t.api.post('/traces', {
      id: 'trace_root_1',
      inferenceResultId: turn.id,
      name: 'agent',
      type: 'AGENT',
      startTime: '2026-01-01T00:00:00.000Z',
      endTime: '2026-01-01T00:00:01.500Z',
    });
    expect(root.status).toBe(201);
    expect(root.body).toMatchObject({ id: 'trace_root_1', latencyMs: 1500, sessionId: s.id });
    const child = await t.api.post('/traces', {
      inferenceResultId: turn.id,
      name: 'lookup',
      type: 'TOOL',
      parentTraceId: 'trace_root_1',
      outputData: 'plain text',
      startTime: '2026-01-01T00:00:00.500Z',
    });
    expect(child.body).toMatchObject({
      id: expect.stringMatching(/^trace_/),
      outputData: 'plain text',
      parentTraceId: 'trace_root_1',
    });
    expect(
      (await t.api.post('/traces', { id: 'trace_root_1', inferenceResultId: turn.id, name: 'again', type: 'AGENT' }))
        .status,
    ).toBe(409);
    expect(
      (await t.api.post('/traces', { id: 'span_1', inferenceResultId: turn.id, name: 'x', type: 'AGENT' })).body
        .message,
    ).toBe("id must be an id starting with 'trace_'");
    expect((await t.api.post('/traces', { inferenceResultId: turn.id, name: 'x', type: 'THING' })).status).toBe(400);
    const otherTurn = await t.turn(s.id);
    expect(
      (
        await t.api.post('/traces', {
          inferenceResultId: otherTurn.id,
          name: 'x',
          type: 'TOOL',
          parentTraceId: 'trace_root_1',
        })
      ).body.message,
    ).toMatch(/belongs to another inference result/);
    expect((await t.api.get('/traces/not-a-span')).status).toBe(404);
    const list = await t.api.get('/traces', { sessionIds: s.id });
    expect(list.body.map((x: { id: string }) => x.id)).toEqual(['trace_root_1', child.body.id]);
    expect((await t.api.get('/traces', { inferenceResultIds: turn.id, types: 'TOOL' })).body).toHaveLength(1);
    expect((await t.api.del('/traces/trace_root_1')).status).toBe(200);
    expect((await t.api.get('/traces', { sessionIds: s.id })).body).toHaveLength(1);
    expect((await t.api.get('/traces/trace_root_1')).body.deletedAt).toEqual(expect.any(String));
    const other = await newTenant();
    expect((await other.api.get(`/traces/${child.body.id}`)).status).toBe(403);
  });

  it('round-trips a 1 MB description byte for byte through storage, and refuses more', async () => {
    const t = await setup();
    const s = await t.session();
    const turn = await t.turn(s.id);
    const unit = 'héllo wörld — ';
    const description = unit.repeat(Math.floor((1024 * 1024) / Buffer.byteLength(unit))).slice(0, 1024 * 1024 - 64);
    const big = await t.api.post('/traces', {
      id: 'trace_big_1',
      inferenceResultId: turn.id,
      name: 'llm',
      type: 'GENERATION',
      description,
      inputData: { prompt: 'y'.repeat(100_000) },
    });
    expect(big.status).toBe(201);
    const read = await t.api.get('/traces/trace_big_1');
    expect(read.body.description).toBe(description);
    expect(read.body.inputData.prompt).toHaveLength(100_000);
    const tooBig = 'x'.repeat(1024 * 1024 + 1);
    expect(
      (await t.api.post('/traces', { inferenceResultId: turn.id, name: 'x', type: 'SPAN', description: tooBig })).body
        .message,
    ).toMatch(/^description must be at most 1 MB/);
  });

  it('creates a batch all or nothing', async () => {
    const t = await setup();
    const s = await t.session();
    const turn = await t.turn(s.id);
    const ok = await t.api.post('/traces/batch', {
      spans: [
        { id: 'trace_b1', inferenceResultId: turn.id, name: 'a', type: 'CHAIN' },
        { id: 'trace_b2', inferenceResultId: turn.id, name: 'b', type: 'TOOL', parentTraceId: 'trace_b1' },
      ],
    });
    expect(ok.status).toBe(201);
    const dup = await t.api.post('/traces/batch', {
      spans: [
        { id: 'trace_b3', inferenceResultId: turn.id, name: 'c', type: 'TOOL' },
        { id: 'trace_b1', inferenceResultId: turn.id, name: 'd', type: 'TOOL' },
      ],
    });
    expect(dup.status).toBe(409);
    expect((await t.api.get('/traces/trace_b3')).status).toBe(404);
  });
});

describe('evaluations', () => {
  it('creates one evaluation per metric with the status of its source', async () => {
    const t = await setup();
    const s = await t.session();
    await t.turn(s.id, 'hi', '{"a":1}');
    const selfHosted = (
      await t.api.post('/metrics', { name: 'mine', source: 'SELF_HOSTED', evaluationParams: ['actual_output'] })
    ).body;
    const human = (
      await t.api.post('/metrics', {
        name: 'human',
        source: 'HUMAN_EVALUATION',
        evaluationParams: ['input'],
        judgePrompt: 'rate',
      })
    ).body;
    const res = await t.api.post('/evaluations', {
      sessionId: s.id,
      metricIds: [selfHosted.id, human.id, 'met_is_json', 'met_json_field_match'],
      scores: [{ metricId: selfHosted.id, score: 0.7, reason: 'ok' }],
    });
    expect(res.status).toBe(201);
    const byMetric = Object.fromEntries(res.body.map((e: { metricId: string }) => [e.metricId, e]));
    expect(byMetric[selfHosted.id]).toMatchObject({ status: 'SUCCESS', score: 0.7, reason: 'ok' });
    expect(byMetric[human.id]).toMatchObject({ status: 'PENDING_HUMAN', score: null });
    expect(byMetric.met_is_json).toMatchObject({ status: 'PENDING', metricGroupId: 'mgrp_is_json' });
    expect(byMetric.met_json_field_match).toMatchObject({
      status: 'SKIPPED',
      error: 'missing expected_output: the session has no test case',
    });
    const scored = await t.api.patch(`/evaluations/${byMetric[human.id].id}`, { humanScore: 0.9, humanReason: 'good' });
    expect(scored.body).toMatchObject({ status: 'SUCCESS', score: 0.9, humanScore: 0.9, humanReason: 'good' });
    expect((await t.api.patch(`/evaluations/${byMetric.met_is_json.id}`, { humanScore: 1 })).status).toBe(400);
    expect((await t.api.patch(`/evaluations/${byMetric[human.id].id}`, { humanScore: 2 })).body.message).toBe(
      'humanScore must be at most 1',
    );
    const list = await t.api.get('/evaluations', { sessionIds: s.id, statuses: 'SUCCESS' });
    expect(list.body).toHaveLength(2);
    expect((await t.api.get(`/evaluations/${byMetric.met_is_json.id}`)).body.id).toBe(byMetric.met_is_json.id);
  });

  it('validates and guards tenancy', async () => {
    const t = await setup();
    const other = await setup();
    const s = await t.session();
    const selfHosted = (
      await t.api.post('/metrics', { name: 'mine', source: 'SELF_HOSTED', evaluationParams: ['actual_output'] })
    ).body;
    expect((await t.api.post('/evaluations', { sessionId: s.id, metricIds: [selfHosted.id] })).body.message).toMatch(
      /^scores must hold a score/,
    );
    expect((await t.api.post('/evaluations', { sessionId: s.id, metricIds: ['met_nope'] })).status).toBe(400);
    expect((await t.api.post('/evaluations', { sessionId: s.id, metricIds: [] })).status).toBe(400);
    expect((await other.api.post('/evaluations', { sessionId: s.id, metricIds: ['met_is_json'] })).status).toBe(403);
    const theirMetric = (
      await other.api.post('/metrics', { name: 'x', source: 'SELF_HOSTED', evaluationParams: ['input'] })
    ).body;
    expect(
      (
        await t.api.post('/evaluations', {
          sessionId: s.id,
          metricIds: [theirMetric.id],
          scores: [{ metricId: theirMetric.id, score: 1 }],
        })
      ).status,
    ).toBe(403);
    expect((await other.api.get('/evaluations', { sessionIds: s.id })).status).toBe(403);
  });
});

describe('test activity flags', () => {
  it('marks a test as having traces and evaluations once its sessions get them', async () => {
    const t = await setup();
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'flags', type: 'QUALITY' })).body;
    const tc = (await t.api.post('/testCases', { testId: test.id, input: 'q' })).body;
    const s = await t.session({ testCaseId: tc.id });
    const turn = await t.turn(s.id);
    const flags = async () => ({
      traces: ((await t.api.get('/tests', { hasTraces: true })).body as { id: string }[]).map((x) => x.id),
      evaluations: ((await t.api.get('/tests', { hasEvaluations: true })).body as { id: string }[]).map((x) => x.id),
    });
    expect(await flags()).toEqual({ traces: [], evaluations: [] });
    await t.api.post('/traces', { inferenceResultId: turn.id, name: 'x', type: 'TOOL' });
    await t.api.post('/evaluations', { sessionId: s.id, metricIds: ['met_is_json'] });
    expect(await flags()).toEqual({ traces: [test.id], evaluations: [test.id] });
  });
});

describe('metric compatibility', () => {
  const entry = (list: { id: string }[], id: string) => list.find((e) => e.id === id) as Record<string, unknown>;

  it('a production session with turns: output metrics compatible, reference metrics not', async () => {
    const t = await setup();
    const s = await t.session();
    await t.turn(s.id);
    const res = await t.api.get(`/sessions/${s.id}/metricCompatibility`);
    expect(res.status).toBe(200);
    expect(entry(res.body, 'met_is_json')).toMatchObject({
      isCompatible: true,
      relevance: 'none',
      incompatibilityReason: null,
      source: 'DETERMINISTIC',
    });
    expect(entry(res.body, 'met_text_similarity')).toMatchObject({
      isCompatible: false,
      incompatibilityReason: 'missing expected_output: the session has no test case',
    });
    expect(entry(res.body, 'met_faithfulness')).toMatchObject({
      isCompatible: false,
      incompatibilityReason: 'missing retrieval_context: no turn has retrieval context',
    });
    // compatible first within a relevance, then by name
    const firstIncompatible = res.body.findIndex((e: { isCompatible: boolean }) => !e.isCompatible);
    expect(res.body.slice(firstIncompatible).every((e: { isCompatible: boolean }) => !e.isCompatible)).toBe(true);
    expect((await t.api.get(`/sessions/${s.id}/metricCompatibility`, { limit: 3 })).body).toHaveLength(3);
    expect((await t.api.get(`/sessions/${s.id}/metricCompatibility`, { limit: 0 })).status).toBe(400);
    expect((await t.api.get(`/sessions/${s.id}/metricCompatibility`, { limit: 501 })).status).toBe(400);
  });

  it('a test session before any turn: the conversation connection mapping decides', async () => {
    const t = await setup();
    const withMapping = await createConnection(t.api, t.product.id, { outputMapping: { output: '$.reply' } });
    const version = await createVersion(t.api, t.product.id, { conversationEndpointConnectionId: withMapping.id });
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'x', type: 'QUALITY' })).body;
    const tc = (await t.api.post('/testCases', { testId: test.id, input: 'q' })).body;
    const s = (await t.api.post('/sessions', { versionId: version.id, testCaseId: tc.id })).body;
    const res = (await t.api.get(`/sessions/${s.id}/metricCompatibility`, { limit: 500 })).body;
    expect(entry(res, 'met_is_json')).toMatchObject({ isCompatible: true });
    expect(entry(res, 'met_faithfulness').incompatibilityReason).toBe(
      'missing retrieval_context: the session has no turns and the conversation endpoint connection does not map retrieval_context',
    );
    // a test case without expected output
    expect(entry(res, 'met_text_similarity').incompatibilityReason).toBe(
      'missing expected_output: the test case has no expected output',
    );
    // a version without a conversation connection
    const bare = (await t.api.post('/sessions', { versionId: t.version.id, testCaseId: tc.id })).body;
    const bareRes = (await t.api.get(`/sessions/${bare.id}/metricCompatibility`, { limit: 500 })).body;
    expect(entry(bareRes, 'met_is_json').incompatibilityReason).toMatch(/has no conversation endpoint connection/);
  });

  it('orders linked, then matching, then none', async () => {
    const t = await setup();
    const spec = (
      await t.api.post('/specifications', {
        productId: t.product.id,
        description: 'd',
        type: 'POLICY',
        testType: 'QUALITY',
        testVariant: 'rag',
      })
    ).body;
    const otherSpec = (
      await t.api.post('/specifications', {
        productId: t.product.id,
        description: 'e',
        type: 'POLICY',
        testType: 'QUALITY',
        testVariant: 'summarization',
      })
    ).body;
    await t.api.post(`/specifications/${spec.id}/metrics`, { metricIds: ['met_non_toxic'] });
    await t.api.post(`/specifications/${otherSpec.id}/metrics`, { metricIds: ['met_no_bias'] });
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'x', specificationId: spec.id })).body;
    const tc = (await t.api.post('/testCases', { testId: test.id, input: 'q', expectedOutput: 'a' })).body;
    const s = (await t.api.post('/sessions', { versionId: t.version.id, testCaseId: tc.id })).body;
    await t.turn(s.id);
    const res = (await t.api.get(`/sessions/${s.id}/metricCompatibility`, { limit: 500 })).body;
    expect(res[0]).toMatchObject({ id: 'met_non_toxic', relevance: 'linked', isCompatible: true });
    expect(res[1]).toMatchObject({ id: 'met_no_bias', relevance: 'matching' });
    expect(res.slice(2).every((e: { relevance: string }) => e.relevance === 'none')).toBe(true);
    expect(entry(res, 'met_text_similarity')).toMatchObject({ isCompatible: true });
  });
});
