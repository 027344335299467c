import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion } from '../support/fixtures.js';

describe('products', () => {
  it('creates with defaults, reads, lists, updates and soft-deletes', async () => {
    const t = await newTenant();
    const res = await t.api.post('/products', { name: 'Bot' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Bot',
      description: '',
      capabilities: [],
      inabilities: [],
      securityBoundaries: [],
      policies: [],
      organizationId: t.org.id,
    });
    const id = res.body.id;
    expect((await t.api.patch(`/products/${id}`, { policies: ['no legal advice'] })).body.policies).toEqual([
      'no legal advice',
    ]);
    await createProduct(t.api, { name: 'Other' });
    expect((await t.api.get('/products', { names: 'Bot' })).body).toHaveLength(1);
    expect((await t.api.get('/products')).headers['x-total-count']).toBe('2');
    const del = await t.api.del(`/products/${id}`);
    expect(del.body).toEqual({ id, deletedAt: expect.any(String) });
    expect((await t.api.get('/products')).headers['x-total-count']).toBe('1');
    expect((await t.api.get(`/products/${id}`)).body.deletedAt).toBe(del.body.deletedAt);
    expect((await t.api.patch(`/products/${id}`, { name: 'again' })).status).toBe(404);
    expect((await t.api.del(`/products/${id}`)).status).toBe(404);
  });

  it('validates fields and tenancy', async () => {
    const t = await newTenant();
    const other = await newTenant();
    expect((await t.api.post('/products', { name: '' })).body.message).toBe('name must not be empty');
    expect((await t.api.post('/products', { name: 'x', capabilities: 'many' })).body.message).toBe(
      'capabilities must be an array',
    );
    expect((await t.api.post('/products', { name: 'x', id: 'prod_mine' })).body.message).toBe("unknown field 'id'");
    const theirs = await createProduct(other.api);
    expect((await t.api.get(`/products/${theirs.id}`)).status).toBe(403);
    expect((await t.api.del(`/products/${theirs.id}`)).status).toBe(403);
    expect((await t.api.get('/products/prod_none')).status).toBe(404);
    expect((await t.api.get('/products', { bogus: 1 })).status).toBe(400);
  });

  it('deleting a product soft-deletes its versions and connections, and frees version names', async () => {
    const t = await newTenant();
    const p = await createProduct(t.api);
    const conn = await createConnection(t.api, p.id);
    const v = await createVersion(t.api, p.id, { name: 'v1', conversationEndpointConnectionId: conn.id });
    const phone = (await t.api.post('/phoneConnections', { productId: p.id, name: 'l', phoneNumber: '+14155550123' }))
      .body;
    expect((await t.api.del(`/products/${p.id}`)).status).toBe(200);
    for (const path of [`/versions/${v.id}`, `/endpointConnections/${conn.id}`, `/phoneConnections/${phone.id}`]) {
      expect((await t.api.get(path)).body.deletedAt, path).toEqual(expect.any(String));
    }
    expect((await t.api.get('/versions')).body).toEqual([]);
    expect((await t.api.get('/endpointConnections')).body).toEqual([]);
  });
});

describe('versions', () => {
  it('creates, reads, lists by product, renames and deletes', async () => {
    const t = await newTenant();
    const p = await createProduct(t.api);
    const conn = await createConnection(t.api, p.id);
    const res = await t.api.post('/versions', {
      productId: p.id,
      name: 'v1',
      modelId: 'gpt-x',
      conversationEndpointConnectionId: conn.id,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'v1',
      modelId: 'gpt-x',
      systemPrompt: null,
      conversationEndpointConnectionId: conn.id,
      initializationEndpointConnectionId: null,
    });
    const renamed = await t.api.patch(`/versions/${res.body.id}`, {
      name: 'v2',
      conversationEndpointConnectionId: null,
    });
    expect(renamed.body).toMatchObject({ name: 'v2', conversationEndpointConnectionId: null });
    // the old name is free again, the new one is taken
    expect((await t.api.post('/versions', { productId: p.id, name: 'v1' })).status).toBe(201);
    expect((await t.api.post('/versions', { productId: p.id, name: 'v2' })).status).toBe(409);
    expect((await t.api.get('/versions', { productIds: p.id })).headers['x-total-count']).toBe('2');
    expect((await t.api.del(`/versions/${res.body.id}`)).status).toBe(200);
    expect((await t.api.post('/versions', { productId: p.id, name: 'v2' })).status).toBe(201);
  });

  it('keeps names unique per product, under concurrency too', async () => {
    const t = await newTenant();
    const p = await createProduct(t.api);
    const q = await createProduct(t.api);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.api.post('/versions', { productId: p.id, name: 'same' })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body).toMatchObject({ error: 'Conflict' });
    expect((await t.api.post('/versions', { productId: q.id, name: 'same' })).status).toBe(201);
    const v = await createVersion(t.api, p.id, { name: 'other' });
    expect((await t.api.patch(`/versions/${v.id}`, { name: 'same' })).status).toBe(409);
  });

  it('checks connection references: same product, matching type, live', async () => {
    const t = await newTenant();
    const p = await createProduct(t.api);
    const q = await createProduct(t.api);
    const init = await createConnection(t.api, p.id, { type: 'INITIALIZATION' });
    const foreignProduct = await createConnection(t.api, q.id);
    expect(
      (await t.api.post('/versions', { productId: p.id, name: 'a', conversationEndpointConnectionId: init.id })).body
        .message,
    ).toBe('conversationEndpointConnectionId must name a CONVERSATION endpoint connection, not INITIALIZATION');
    expect(
      (
        await t.api.post('/versions', {
          productId: p.id,
          name: 'a',
          conversationEndpointConnectionId: foreignProduct.id,
        })
      ).body.message,
    ).toMatch(/belongs to another product/);
    expect(
      (await t.api.post('/versions', { productId: p.id, name: 'a', finalizationEndpointConnectionId: 'econ_none' }))
        .body.message,
    ).toMatch(/does not name an existing endpoint connection/);
    expect(
      (await t.api.post('/versions', { productId: p.id, name: 'a', initializationEndpointConnectionId: init.id }))
        .status,
    ).toBe(201);
    // a connection in use cannot be deleted
    expect((await t.api.del(`/endpointConnections/${init.id}`)).status).toBe(409);
  });

  it('validates fields and tenancy', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const p = await createProduct(t.api);
    const theirs = await createProduct(other.api);
    expect((await t.api.post('/versions', { name: 'x' })).body.message).toBe('productId is required');
    expect((await t.api.post('/versions', { productId: theirs.id, name: 'x' })).status).toBe(403);
    const v = await createVersion(t.api, p.id);
    expect((await t.api.patch(`/versions/${v.id}`, { productId: p.id })).body.message).toBe(
      'productId cannot be changed',
    );
    expect((await other.api.get(`/versions/${v.id}`)).status).toBe(403);
    expect((await other.api.patch(`/versions/${v.id}`, { name: 'z' })).status).toBe(403);
    expect((await t.api.get('/versions/ver_none')).status).toBe(404);
  });
});
