import { describe, expect, it } from 'vitest';
import { call, client, newTenant } from '../support/api.js';
import { generateApiKey } from '../../shared/auth/api-key.js';
import { handler as authorizer } from '../../functions/authorizer.js';

const UNAUTHORIZED = { error: 'Unauthorized', message: 'missing or invalid API key' };

describe('API-key authorizer', () => {
  it('accepts a good key in the current and the legacy format', async () => {
    const t = await newTenant();
    expect((await call('GET', '/organization', { key: t.key })).status).toBe(200);
    expect((await call('GET', '/organization', { key: t.key.replace('evk_', 'evk-') })).status).toBe(200);
  });

  it('answers 401 {error, message} for every kind of bad key', async () => {
    const t = await newTenant();
    const body = t.key.slice(4);
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      'wrong prefix': `abc_${body}`,
      'wrong length': `evk_${body.slice(2)}`,
      'bad checksum': `evk_${body.slice(0, 39)}${body[39] === 'A' ? 'B' : 'A'}`,
      'unknown but well-formed': generateApiKey().key,
    };
    for (const [name, key] of Object.entries(cases)) {
      const res = await call('GET', '/organization', { key });
      expect(res.status, name).toBe(401);
      expect(res.body, name).toEqual(UNAUTHORIZED);
    }
    const basic = await call('GET', '/organization', { headers: { authorization: `Basic ${t.key}` } });
    expect(basic.status).toBe(401);
  });

  it('refuses a malformed key without reading the table and puts the caller into the context', async () => {
    await expect(
      authorizer({
        type: 'TOKEN',
        authorizationToken: 'Bearer evk_short',
        methodArn: 'arn:aws:execute-api:r:1:api/v1/GET/x',
      }),
    ).rejects.toThrow('Unauthorized');
    const t = await newTenant({ plan: 'ENTERPRISE' });
    const policy = await authorizer({
      type: 'TOKEN',
      authorizationToken: `Bearer ${t.key}`,
      methodArn: 'arn:aws:execute-api:r:1:api/v1/GET/x',
    });
    expect(policy.context).toMatchObject({
      organizationId: t.org.id,
      role: 'MEMBER',
      plan: 'ENTERPRISE',
      userId: t.apiKey.userId,
    });
    expect(policy.policyDocument.Statement[0]).toMatchObject({
      Effect: 'Allow',
      Resource: 'arn:aws:execute-api:r:1:api/v1/*/*',
    });
  });
});

describe('API keys', () => {
  it('creates a key shown once, lists and reads it without the key, and revokes it', async () => {
    const t = await newTenant();
    const created = await t.api.post('/apiKeys', { name: 'ci' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^evk_/);
    expect(created.body).toMatchObject({
      name: 'ci',
      role: 'MEMBER',
      last4: created.body.key.slice(-4),
      organizationId: t.org.id,
    });

    const second = client(created.body.key);
    expect((await second.get('/organization')).status).toBe(200);

    const list = await t.api.get('/apiKeys');
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(JSON.stringify(list.body)).not.toContain(created.body.key.slice(4));
    for (const k of list.body)
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'last4', 'name', 'organizationId', 'role', 'userId']);

    const one = await t.api.get(`/apiKeys/${created.body.id}`);
    expect(one.body).not.toHaveProperty('key');

    const revoked = await t.api.del(`/apiKeys/${created.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      id: created.body.id,
      revokedAt: expect.any(String),
      deletedAt: expect.any(String),
    });
    expect((await second.get('/organization')).status).toBe(401);
    expect((await t.api.del(`/apiKeys/${created.body.id}`)).status).toBe(404);
    expect((await t.api.get('/apiKeys')).body).toHaveLength(1);
    expect((await t.api.get('/apiKeys', { includeRevoked: true })).body).toHaveLength(2);
    expect((await t.api.get(`/apiKeys/${created.body.id}`)).body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('validates the body and keeps keys to their organization', async () => {
    const t = await newTenant();
    const other = await newTenant();
    expect((await t.api.post('/apiKeys', {})).body.message).toBe('name is required');
    expect((await t.api.post('/apiKeys', { name: 'x', role: 'ADMIN' })).body.message).toBe("unknown field 'role'");
    expect((await t.api.get(`/apiKeys/${other.apiKey.id}`)).status).toBe(403);
    expect((await t.api.del(`/apiKeys/${other.apiKey.id}`)).status).toBe(403);
    expect((await t.api.get('/apiKeys/key_doesnotexist')).status).toBe(404);
    expect((await other.api.get('/organization')).status).toBe(200);
  });
});

describe('organization', () => {
  it('shows plan, credits, the cycle spend and available credits', async () => {
    const t = await newTenant({ monthlyCredits: 250 });
    const res = await t.api.get('/organization');
    expect(res.body).toMatchObject({
      id: t.org.id,
      plan: 'PRO',
      monthlyCredits: 250,
      spentCredits: 0,
      pendingCredits: 0,
      availableCredits: 250,
    });
    expect(res.body.cycleStart).toMatch(/^\d{4}-\d{2}-01T00:00:00.000Z$/);
    const unlimited = await newTenant({ monthlyCredits: null });
    expect((await unlimited.api.get('/organization')).body).toMatchObject({
      monthlyCredits: null,
      availableCredits: null,
      cycleStart: null,
    });
  });

  it('lets only ADMIN keys change plan and credits', async () => {
    const t = await newTenant();
    const admin = await newTenant({ admin: true });
    expect((await t.api.patch(`/organizations/${t.org.id}`, { plan: 'ENTERPRISE' })).status).toBe(403);
    const res = await admin.api.patch(`/organizations/${t.org.id}`, { plan: 'ENTERPRISE', monthlyCredits: 5000 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ plan: 'ENTERPRISE', monthlyCredits: 5000, availableCredits: 5000 });
    expect((await admin.api.patch(`/organizations/${t.org.id}`, { plan: 'GOLD' })).body.message).toBe(
      'plan must be one of: FREE, PRO, ENTERPRISE',
    );
    expect((await admin.api.patch(`/organizations/${t.org.id}`, { monthlyCredits: -1 })).body.message).toBe(
      'monthlyCredits must be at least 0',
    );
    expect((await admin.api.patch('/organizations/org_nope', { plan: 'FREE' })).status).toBe(404);
  });
});

describe('gateway', () => {
  it('answers an unknown route with 404 {error, message}', async () => {
    const t = await newTenant();
    const res = await t.api.get('/nowhere');
    expect(res).toMatchObject({ status: 404, body: { error: 'Not Found', message: 'no such route' } });
  });
});
