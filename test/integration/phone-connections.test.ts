import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const make = async (name: string, phoneNumber = '+14155550123') => {
    const res = await t.api.post('/phoneConnections', { productId: product.id, name, phoneNumber });
    expect(res.status).toBe(201);
    return res.body;
  };
  return { ...t, product, make };
}

describe('phone connections', () => {
  it('creates with agentSpeaksFirst defaulting to false, reads, lists and updates', async () => {
    const t = await setup();
    const created = await t.make('line 1');
    expect(created).toMatchObject({
      name: 'line 1',
      phoneNumber: '+14155550123',
      agentSpeaksFirst: false,
      productId: t.product.id,
      id: expect.stringMatching(/^phc_/),
    });
    expect((await t.api.get(`/phoneConnections/${created.id}`)).body).toEqual(created);
    const updated = await t.api.patch(`/phoneConnections/${created.id}`, { agentSpeaksFirst: true, name: 'line one' });
    expect(updated.body).toMatchObject({ agentSpeaksFirst: true, name: 'line one', phoneNumber: '+14155550123' });
    await t.make('line 2', '+442071838750');
    const list = await t.api.get('/phoneConnections', { productIds: t.product.id, sort: 'name:asc' });
    expect(list.body.map((p: { name: string }) => p.name)).toEqual(['line 2', 'line one']);
    expect(list.headers['x-total-count']).toBe('2');
    expect((await t.api.get('/phoneConnections', { name: 'ONE' })).body).toHaveLength(1);
    expect((await t.api.get('/phoneConnections', { limit: 1, offset: 1 })).body).toHaveLength(1);
  });

  it.each([
    [{ name: 'x', phoneNumber: '4155550123' }, 'phoneNumber must be an E.164 phone number such as +14155550123'],
    [{ name: 'x', phoneNumber: '+0123' }, 'phoneNumber must be an E.164 phone number such as +14155550123'],
    [{ name: 'x', phoneNumber: '+1234567890123456' }, 'phoneNumber must be an E.164 phone number such as +14155550123'],
    [{ phoneNumber: '+14155550123' }, 'name is required'],
    [{ name: 'x', phoneNumber: '+14155550123', agentSpeaksFirst: 'yes' }, 'agentSpeaksFirst must be a boolean'],
    [{ name: 'x', phoneNumber: '+14155550123', deletedAt: '2026-01-01T00:00:00Z' }, "unknown field 'deletedAt'"],
  ])('rejects %j with 400', async (body, message) => {
    const t = await setup();
    const res = await t.api.post('/phoneConnections', { productId: t.product.id, ...body });
    expect(res).toMatchObject({ status: 400, body: { error: 'Bad Request', message } });
  });

  it('rejects an unknown product, a product of another organization, and a change of product', async () => {
    const t = await setup();
    const other = await setup();
    expect(
      (await t.api.post('/phoneConnections', { productId: 'prod_nope', name: 'x', phoneNumber: '+14155550123' })).body
        .message,
    ).toMatch(/productId prod_nope does not name an existing product/);
    expect(
      (await t.api.post('/phoneConnections', { productId: other.product.id, name: 'x', phoneNumber: '+14155550123' }))
        .status,
    ).toBe(403);
    const pc = await t.make('a');
    expect((await t.api.patch(`/phoneConnections/${pc.id}`, { productId: other.product.id })).body.message).toBe(
      'productId cannot be changed',
    );
    expect((await t.api.patch(`/phoneConnections/${pc.id}`, {})).body.message).toBe('body must have at least 1 field');
  });

  it("answers 403 for another organization's record and 404 for none", async () => {
    const t = await setup();
    const other = await setup();
    const theirs = await other.make('theirs');
    expect((await t.api.get(`/phoneConnections/${theirs.id}`)).status).toBe(403);
    expect((await t.api.patch(`/phoneConnections/${theirs.id}`, { name: 'mine' })).status).toBe(403);
    expect((await t.api.get('/phoneConnections/phc_missing')).status).toBe(404);
    expect((await t.api.get('/phoneConnections')).body.find((p: { id: string }) => p.id === theirs.id)).toBeUndefined();
  });

  it('batch-deletes softly: gone from lists, 404 on writes, visible by id with deletedAt', async () => {
    const t = await setup();
    const a = await t.make('a');
    const b = await t.make('b');
    const res = await t.api.del('/phoneConnections/batch', { ids: [a.id, b.id] });
    expect(res).toMatchObject({ status: 200, body: { ids: [a.id, b.id], deletedAt: expect.any(String) } });
    expect((await t.api.get('/phoneConnections')).body).toEqual([]);
    expect((await t.api.get(`/phoneConnections/${a.id}`)).body.deletedAt).toBe(res.body.deletedAt);
    expect((await t.api.patch(`/phoneConnections/${a.id}`, { name: 'again' })).status).toBe(404);
    expect((await t.api.del('/phoneConnections/batch', { ids: [a.id] })).status).toBe(404);
  });

  it("batch delete is all or nothing: an unknown id (404) or another organization's (403) deletes nothing", async () => {
    const t = await setup();
    const other = await setup();
    const a = await t.make('a');
    const b = await t.make('b');
    const theirs = await other.make('theirs');
    const unknown = await t.api.del('/phoneConnections/batch', { ids: [a.id, 'phc_unknown', b.id] });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'phone connection phc_unknown not found' } });
    const foreign = await t.api.del('/phoneConnections/batch', { ids: [a.id, theirs.id] });
    expect(foreign.status).toBe(403);
    for (const id of [a.id, b.id]) expect((await t.api.get(`/phoneConnections/${id}`)).body.deletedAt).toBeUndefined();
    expect((await other.api.get(`/phoneConnections/${theirs.id}`)).body.deletedAt).toBeUndefined();
  });

  it('validates the batch body: 1 to 100 unique ids', async () => {
    const t = await setup();
    expect((await t.api.del('/phoneConnections/batch', { ids: [] })).body.message).toBe(
      'ids must have at least 1 item',
    );
    expect(
      (await t.api.del('/phoneConnections/batch', { ids: Array.from({ length: 101 }, (_, i) => `phc_${i}`) })).body
        .message,
    ).toBe('ids must have at most 100 items');
    expect((await t.api.del('/phoneConnections/batch', { ids: ['phc_a', 'phc_a'] })).body.message).toBe(
      'ids must not contain duplicates',
    );
  });

  it('deletes 100 connections in one transaction', async () => {
    const t = await setup();
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => t.make(`n${i}`).then((p) => p.id as string)));
    const res = await t.api.del('/phoneConnections/batch', { ids });
    expect(res.status).toBe(200);
    expect((await t.api.get('/phoneConnections')).headers['x-total-count']).toBe('0');
  });
});
