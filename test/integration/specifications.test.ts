import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const spec = async (o: Record<string, unknown> = {}) => {
    const res = await t.api.post('/specifications', {
      productId: product.id,
      description: 'No legal advice',
      type: 'POLICY',
      testType: 'RED_TEAMING',
      testVariant: 'misuse',
      ...o,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const metric = async (name = 'm') =>
    (
      await t.api.post('/metrics', {
        name,
        source: 'HUMAN_EVALUATION',
        evaluationParams: ['input'],
        judgePrompt: 'rate',
      })
    ).body as { id: string };
  return { ...t, product, spec, metric };
}

describe('specifications', () => {
  it('creates, reads, lists, updates and deletes', async () => {
    const t = await setup();
    const s = await t.spec();
    expect(s).toMatchObject({
      type: 'POLICY',
      testType: 'RED_TEAMING',
      testVariant: 'misuse',
      metricIds: [],
      productId: t.product.id,
    });
    expect((await t.api.get(`/specifications/${s.id}`)).body).toEqual(s);
    await t.spec({ type: 'CAPABILITY', testType: null, testVariant: null, description: 'Issues refunds' });
    expect((await t.api.get('/specifications', { types: 'CAPABILITY' })).body).toHaveLength(1);
    expect(
      (await t.api.get('/specifications', { testTypes: 'RED_TEAMING', productIds: t.product.id })).body,
    ).toHaveLength(1);
    expect((await t.api.get('/specifications', { description: 'REFUND' })).body).toHaveLength(1);
    const upd = await t.api.patch(`/specifications/${s.id}`, { testType: 'QUALITY', testVariant: 'rag' });
    expect(upd.body).toMatchObject({ testType: 'QUALITY', testVariant: 'rag' });
    expect((await t.api.patch(`/specifications/${s.id}`, { testType: 'QUALITY', testVariant: 'misuse' })).status).toBe(
      400,
    );
    expect((await t.api.patch(`/specifications/${s.id}`, { productId: 'prod_x' })).body.message).toBe(
      'productId cannot be changed',
    );
    expect((await t.api.del(`/specifications/${s.id}`)).status).toBe(200);
    expect((await t.api.get('/specifications')).headers['x-total-count']).toBe('1');
    expect((await t.api.get(`/specifications/${s.id}`)).body.deletedAt).toEqual(expect.any(String));
  });

  it.each([
    [{ type: 'POLICY', testType: null, testVariant: null }, 'testType is required when type is POLICY'],
    [{ type: 'CAPABILITY' }, 'testType must not be set when type is CAPABILITY'],
    [{ testVariant: null }, 'testVariant is required when testType is RED_TEAMING'],
    [{ testVariant: 'rag' }, /^testVariant must be one of: data_leakage/],
    [{ type: 'RULE' }, 'type must be one of: CAPABILITY, INABILITY, POLICY'],
    [{ description: '' }, 'description must not be empty'],
  ])('rejects %j', async (override, message) => {
    const t = await setup();
    const res = await t.api.post('/specifications', {
      productId: t.product.id,
      description: 'd',
      type: 'POLICY',
      testType: 'RED_TEAMING',
      testVariant: 'misuse',
      ...override,
    });
    expect(res.status).toBe(400);
    if (typeof message === 'string') expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
  });

  it('links and unlinks metrics on both sides', async () => {
    const t = await setup();
    const s = await t.spec();
    const m1 = await t.metric('one');
    const m2 = await t.metric('two');
    const linked = await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: [m1.id, 'met_non_toxic'] });
    expect(linked).toMatchObject({
      status: 200,
      body: { specificationId: s.id, metricIds: [m1.id, 'met_non_toxic'].sort() },
    });
    // already linked is fine
    const again = await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: [m1.id, m2.id] });
    expect(again.body.metricIds).toEqual([m1.id, m2.id, 'met_non_toxic'].sort());
    expect((await t.api.get(`/metrics/${m1.id}`)).body.specificationIds).toEqual([s.id]);
    expect((await t.api.get('/metrics/met_non_toxic')).body.specificationIds).toEqual([s.id]);
    expect((await t.api.get(`/specifications/${s.id}`)).body.metricIds).toEqual(again.body.metricIds);
    const listed = await t.api.get(`/specifications/${s.id}/metrics`);
    expect(listed.body.map((m: { id: string }) => m.id).sort()).toEqual(again.body.metricIds);
    const unlinked = await t.api.del(`/specifications/${s.id}/metrics`, { metricIds: [m1.id, 'met_non_toxic'] });
    expect(unlinked.body.metricIds).toEqual([m2.id]);
    expect((await t.api.get(`/metrics/${m1.id}`)).body.specificationIds).toEqual([]);
    // another organization never sees this organization's links on a predefined metric
    const other = await newTenant();
    await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: ['met_non_toxic'] });
    expect((await other.api.get('/metrics/met_non_toxic')).body.specificationIds).toEqual([]);
  });

  it('validates links: 1–100 ids, visible live metrics, the caller’s specification', async () => {
    const t = await setup();
    const other = await setup();
    const s = await t.spec();
    const theirs = await other.metric();
    expect((await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: [] })).body.message).toBe(
      'metricIds must have at least 1 item',
    );
    expect((await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: [theirs.id] })).status).toBe(403);
    expect((await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: ['met_unknown'] })).status).toBe(404);
    const dead = await t.metric('dead');
    await t.api.del(`/metrics/${dead.id}`);
    expect((await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: [dead.id] })).status).toBe(404);
    expect((await other.api.post(`/specifications/${s.id}/metrics`, { metricIds: [theirs.id] })).status).toBe(403);
    expect((await other.api.get(`/specifications/${s.id}`)).status).toBe(403);
    expect((await t.api.get(`/specifications/${s.id}`)).body.metricIds).toEqual([]);
  });

  it('deleting a metric removes its links', async () => {
    const t = await setup();
    const s = await t.spec();
    const m = await t.metric();
    await t.api.post(`/specifications/${s.id}/metrics`, { metricIds: [m.id] });
    await t.api.del(`/metrics/${m.id}`);
    expect((await t.api.get(`/specifications/${s.id}`)).body.metricIds).toEqual([]);
  });
});
