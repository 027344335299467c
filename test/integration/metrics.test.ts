import { afterEach, describe, expect, it, vi } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';
import { clock } from '../../shared/domain/common/clock.js';
import { predefinedMetrics } from '../../shared/domain/metrics/predefined/seed.js';

const judged = (o: Record<string, unknown> = {}) => ({
  name: 'Politeness',
  source: 'PARTIAL_PROMPT',
  evaluationParams: ['input', 'actual_output'],
  judgePrompt: 'Score 1 when polite.',
  evaluatorModelName: 'gpt-4o-mini',
  ...o,
});

afterEach(() => vi.restoreAllMocks());

describe('metrics', () => {
  it('creates a root metric in a fresh family, reads and lists it', async () => {
    const t = await newTenant();
    const res = await t.api.post('/metrics', judged({ tags: ['tone'], evaluationParams: ['actual_output', 'input'] }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Politeness',
      parentMetricId: null,
      organizationId: t.org.id,
      evaluationParams: ['actual_output', 'input'],
      legacyAt: null,
      disabledAt: null,
      specificationIds: [],
      areEvalParamsTop: false,
      metricGroupId: expect.stringMatching(/^mgrp_/),
    });
    expect((await t.api.get(`/metrics/${res.body.id}`)).body).toEqual(res.body);
    const own = await t.api.get('/metrics', { includeDefault: false });
    expect(own.body.map((m: { id: string }) => m.id)).toEqual([res.body.id]);
  });

  it.each([
    [{ source: 'FULL_PROMPT' }, 'source FULL_PROMPT is deprecated for creation; use PARTIAL_PROMPT'],
    [{ metricGroupId: 'mgrp_mine' }, "unknown field 'metricGroupId'"],
    [{ legacyAt: '2026-01-01T00:00:00Z' }, "unknown field 'legacyAt'"],
    [{ evaluationParams: ['input', 'input'] }, 'evaluationParams must not contain duplicates'],
    [{ evaluationParams: ['input', 'vibes'] }, /^evaluationParams\[1\] must be one of: input, actual_output/],
    [{ evaluationParams: [] }, 'evaluationParams must have at least 1 item'],
    [{ judgePrompt: undefined }, 'judgePrompt is required when source is PARTIAL_PROMPT'],
    [{ evaluatorModelName: 'no-such-model' }, 'evaluatorModelName no-such-model is not a known evaluator model'],
    [{ evaluatorModelName: 'gpt-3.5-turbo' }, 'evaluatorModelName gpt-3.5-turbo is disabled'],
    [{ source: 'SELF_HOSTED' }, 'judgePrompt must not be set when source is SELF_HOSTED'],
    [{ documentationUrl: 'not a url' }, 'documentationUrl must be a valid uri'],
    [{ specificationIds: ['spec_nope'] }, /^specificationIds: specification spec_nope not found/],
  ])('rejects %j with 400', async (override, message) => {
    const t = await newTenant();
    const res = await t.api.post('/metrics', judged(override));
    expect(res.status).toBe(400);
    if (typeof message === 'string') expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
  });

  it('makes a revision: it joins the family and the parent becomes legacy, in one transaction', async () => {
    const t = await newTenant();
    const root = (await t.api.post('/metrics', judged())).body;
    const rev = await t.api.post(
      '/metrics',
      judged({ parentMetricId: root.id, judgePrompt: 'Score 1 when very polite.' }),
    );
    expect(rev.status).toBe(201);
    expect(rev.body).toMatchObject({ parentMetricId: root.id, metricGroupId: root.metricGroupId, legacyAt: null });
    const parent = (await t.api.get(`/metrics/${root.id}`)).body;
    expect(parent.legacyAt).toBe(rev.body.createdAt);
    // legacy metrics are hidden unless asked for
    const ids = async (q: Record<string, string | boolean>) =>
      (await t.api.get('/metrics', { includeDefault: false, ...q })).body.map((m: { id: string }) => m.id);
    expect(await ids({})).toEqual([rev.body.id]);
    expect((await ids({ includeLegacy: true })).sort()).toEqual([root.id, rev.body.id].sort());
    // a null parent starts a new family
    const fresh = await t.api.post('/metrics', judged({ parentMetricId: null }));
    expect(fresh.body.metricGroupId).not.toBe(root.metricGroupId);
  });

  it('keeps one family when two revisions of one parent race', async () => {
    const t = await newTenant();
    const root = (await t.api.post('/metrics', judged())).body;
    const [a, b] = await Promise.all([
      t.api.post('/metrics', judged({ parentMetricId: root.id, name: 'A' })),
      t.api.post('/metrics', judged({ parentMetricId: root.id, name: 'B' })),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.metricGroupId).toBe(root.metricGroupId);
    expect(b.body.metricGroupId).toBe(root.metricGroupId);
    expect((await t.api.get(`/metrics/${root.id}`)).body.legacyAt).not.toBeNull();
  });

  it("checks the parent: another organization's → 403, unknown → 404, deleted → 404; predefined parents stay untouched", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const theirs = (await other.api.post('/metrics', judged())).body;
    expect((await t.api.post('/metrics', judged({ parentMetricId: theirs.id }))).status).toBe(403);
    expect((await t.api.post('/metrics', judged({ parentMetricId: 'met_unknown' }))).status).toBe(404);
    const mine = (await t.api.post('/metrics', judged())).body;
    await t.api.del(`/metrics/${mine.id}`);
    expect((await t.api.post('/metrics', judged({ parentMetricId: mine.id }))).status).toBe(404);
    const rev = await t.api.post(
      '/metrics',
      judged({ parentMetricId: 'met_non_toxic', evaluationParams: ['actual_output'] }),
    );
    expect(rev.body).toMatchObject({ metricGroupId: 'mgrp_non_toxic', organizationId: t.org.id });
    expect((await other.api.get('/metrics/met_non_toxic')).body.legacyAt).toBeNull();
  });

  it('derives legacyAt and disabledAt from a model cutoff as the clock moves', async () => {
    const admin = await newTenant({ admin: true });
    const t = await newTenant();
    const name = `model-${Date.now()}`;
    expect(
      (
        await admin.api.put(`/models/${name}`, {
          provider: 'test',
          unselectableAt: '2030-01-01T00:00:00.000Z',
          disabledAt: '2031-01-01T00:00:00.000Z',
        })
      ).status,
    ).toBe(201);
    const metric = (await t.api.post('/metrics', judged({ evaluatorModelName: name }))).body;
    expect(metric).toMatchObject({ legacyAt: null, disabledAt: '2031-01-01T00:00:00.000Z' });
    vi.spyOn(clock, 'now').mockReturnValue(new Date('2030-06-01T00:00:00.000Z'));
    expect((await t.api.get(`/metrics/${metric.id}`)).body).toMatchObject({
      legacyAt: '2030-01-01T00:00:00.000Z',
      disabledAt: '2031-01-01T00:00:00.000Z',
    });
    expect((await t.api.post('/metrics', judged({ evaluatorModelName: name }))).body.message).toBe(
      `evaluatorModelName ${name} can no longer be selected for new metrics`,
    );
    expect((await t.api.get('/metrics', { includeDefault: false })).body).toEqual([]);
    expect((await t.api.get('/metrics', { includeDefault: false, includeLegacy: true })).body).toHaveLength(1);
  });

  it('patches only descriptive fields; scoring fields are a 400 naming them', async () => {
    const t = await newTenant();
    const m = (await t.api.post('/metrics', judged())).body;
    const res = await t.api.patch(`/metrics/${m.id}`, {
      name: 'Courtesy',
      tags: ['a'],
      description: 'd',
      documentationUrl: 'https://docs.example.com/m',
      userGroupIds: ['grp_1'],
    });
    expect(res.body).toMatchObject({
      name: 'Courtesy',
      tags: ['a'],
      description: 'd',
      documentationUrl: 'https://docs.example.com/m',
      userGroupIds: ['grp_1'],
    });
    for (const field of ['judgePrompt', 'evaluationParams', 'source', 'evaluatorModelName', 'areEvalParamsTop']) {
      const r = await t.api.patch(`/metrics/${m.id}`, { [field]: 'x' });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(`${field} cannot be changed by PATCH; create a revision with parentMetricId instead`);
    }
    expect((await t.api.patch(`/metrics/${m.id}`, { metricGroupId: 'x' })).body.message).toBe(
      "unknown field 'metricGroupId'",
    );
  });

  it('protects predefined metrics and other organizations’ metrics, and soft-deletes', async () => {
    const t = await newTenant();
    const other = await newTenant();
    expect((await t.api.patch('/metrics/met_is_json', { name: 'mine' })).status).toBe(403);
    expect((await t.api.del('/metrics/met_is_json')).status).toBe(403);
    const theirs = (await other.api.post('/metrics', judged())).body;
    expect((await t.api.get(`/metrics/${theirs.id}`)).status).toBe(403);
    expect((await t.api.patch(`/metrics/${theirs.id}`, { name: 'x' })).status).toBe(403);
    expect((await t.api.del(`/metrics/${theirs.id}`)).status).toBe(403);
    expect((await t.api.get('/metrics/met_nothing')).status).toBe(404);
    const del = await other.api.del(`/metrics/${theirs.id}`);
    expect(del.body).toEqual({ id: theirs.id, deletedAt: expect.any(String) });
    expect((await other.api.get(`/metrics/${theirs.id}`)).body.deletedAt).toBe(del.body.deletedAt);
    expect((await other.api.get('/metrics', { includeDefault: false })).body).toEqual([]);
    expect((await other.api.patch(`/metrics/${theirs.id}`, { name: 'x' })).status).toBe(404);
  });

  it('lists with every filter', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const spec = (
      await t.api.post('/specifications', { productId: product.id, description: 'polite', type: 'CAPABILITY' })
    ).body;
    const a = (
      await t.api.post(
        '/metrics',
        judged({
          name: 'alpha',
          tags: ['x'],
          description: 'Checks TONE',
          userGroupIds: ['g1'],
          specificationIds: [spec.id],
        }),
      )
    ).body;
    const b = (
      await t.api.post('/metrics', {
        name: 'beta',
        source: 'HUMAN_EVALUATION',
        evaluationParams: ['input'],
        judgePrompt: 'rate it',
      })
    ).body;
    const c = (
      await t.api.post('/metrics', {
        name: 'gamma',
        source: 'SELF_HOSTED',
        evaluationParams: ['actual_output', 'expected_output'],
        tags: ['y'],
      })
    ).body;
    const ids = async (q: Record<string, string | boolean>) =>
      ((await t.api.get('/metrics', q)).body as { id: string }[]).map((m) => m.id).sort();
    const own = { includeDefault: false };
    expect(await ids({ ...own, ids: `${a.id},${c.id}` })).toEqual([a.id, c.id].sort());
    expect(await ids({ ...own, names: 'beta' })).toEqual([b.id]);
    expect(await ids({ ...own, name: 'AMM' })).toEqual([c.id]);
    expect(await ids({ ...own, description: 'tone' })).toEqual([a.id]);
    expect(await ids({ ...own, tags: 'x,y' })).toEqual([a.id, c.id].sort());
    expect(await ids({ ...own, sources: 'HUMAN_EVALUATION' })).toEqual([b.id]);
    expect(await ids({ ...own, specificationIds: spec.id })).toEqual([a.id]);
    expect(await ids({ ...own, productIds: product.id })).toEqual([a.id]);
    expect(await ids({ ...own, userGroupIds: 'g1' })).toEqual([a.id]);
    expect(await ids({ ...own, organizationIds: t.org.id })).toHaveLength(3);
    expect(await ids({ ...own, monitorable: true })).toEqual([a.id]);
    expect(await ids({ ...own, fromCreatedAt: b.createdAt, toCreatedAt: b.createdAt })).toEqual([b.id]);
    const predefinedOnly = await ids({ includeOwned: false });
    expect(predefinedOnly).toHaveLength(predefinedMetrics().length);
    const all = await t.api.get('/metrics', { limit: 1000 });
    expect(all.headers['x-total-count']).toBe(String(predefinedMetrics().length + 3));
    const monitorableDefaults = await ids({ includeOwned: false, monitorable: true, sources: 'DETERMINISTIC' });
    expect(monitorableDefaults).toEqual([
      'met_is_json',
      'met_no_pii',
      'met_non_empty_output',
      'met_voice_dead_air',
      'met_voice_latency',
      'met_voice_no_interruptions',
    ]);
  });
});

describe('evaluator models', () => {
  it('lists the seeded models and lets only ADMIN keys change them', async () => {
    const t = await newTenant();
    const admin = await newTenant({ admin: true });
    const list = await t.api.get('/models');
    expect(list.body.map((m: { name: string }) => m.name)).toEqual(
      expect.arrayContaining(['gpt-4o-mini', 'claude-sonnet-4']),
    );
    expect((await t.api.put('/models/custom-x', { provider: 'p' })).status).toBe(403);
    const created = await admin.api.put('/models/custom-x', { provider: 'p', creditsPerEvaluation: 3 });
    expect(created).toMatchObject({
      status: 201,
      body: { name: 'custom-x', creditsPerEvaluation: 3, providerModelId: 'custom-x', unselectableAt: null },
    });
    const updated = await admin.api.put('/models/custom-x', { provider: 'p', disabledAt: '2026-01-01T00:00:00.000Z' });
    expect(updated).toMatchObject({
      status: 200,
      body: { creditsPerEvaluation: 3, disabledAt: '2026-01-01T00:00:00.000Z' },
    });
    expect((await admin.api.put('/models/custom-x', { provider: 'p', creditsPerEvaluation: -1 })).body.message).toBe(
      'creditsPerEvaluation must be at least 0',
    );
    expect((await admin.api.put('/models/bad name', { provider: 'p' })).status).toBe(400);
  });
});

describe('predefined metrics', () => {
  it('ship the deterministic ones and at least eight AI-judged ones, visible to every organization', async () => {
    const t = await newTenant();
    const list = (await t.api.get('/metrics', { includeOwned: false, limit: 1000 })).body as {
      name: string;
      source: string;
      organizationId: null;
      judgePrompt: string | null;
    }[];
    const names = list.map((m) => m.name);
    for (const name of [
      'text_similarity',
      'text_match',
      'json_field_match',
      'json_field_match_normalized',
      'iou',
      'spatial_match',
      'tool_correctness',
      'bleu',
      'rouge',
      'is_json',
      'non_empty_output',
      'no_pii',
    ]) {
      expect(names).toContain(name);
    }
    const ai = list.filter((m) => m.source === 'PARTIAL_PROMPT');
    expect(ai.length).toBeGreaterThanOrEqual(8);
    for (const m of ai) expect(m.judgePrompt!.length).toBeGreaterThan(100);
    for (const m of list) expect(m.organizationId).toBeNull();
  });
});
