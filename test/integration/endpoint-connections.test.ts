import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { connectionBody, createProduct } from '../support/fixtures.js';

const TOKEN = 'tok-SUPERSECRET-7f3a9c';
const PASSWORD = 'pw-HUSH-41d2e8';

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  return { ...t, product, body: (o: Record<string, unknown> = {}) => connectionBody(product.id, o) };
}

describe('endpoint connections', () => {
  it('creates with the contract defaults and reads it back', async () => {
    const t = await setup();
    const res = await t.api.post('/endpointConnections', t.body());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      httpMethod: 'POST',
      authType: 'NONE',
      hasAuthToken: false,
      hasPassword: false,
      username: null,
      headers: {},
      inputSchema: null,
      timeout: 15,
      rateLimit: null,
      retryEnabled: false,
      retryMaxAttempts: 0,
      retryBackoffStrategy: 'EXPONENTIAL',
      retryableStatusCodes: [429, 500, 502, 503, 504],
      type: 'CONVERSATION',
      id: expect.stringMatching(/^econ_/),
    });
    expect((await t.api.get(`/endpointConnections/${res.body.id}`)).body).toEqual(res.body);
  });

  it('caps timeout at 120 and retryMaxDelayMs at 60000 instead of rejecting', async () => {
    const t = await setup();
    const res = await t.api.post('/endpointConnections', t.body({ timeout: 500, retryMaxDelayMs: 999_999 }));
    expect(res.body).toMatchObject({ timeout: 120, retryMaxDelayMs: 60_000 });
    const upd = await t.api.patch(`/endpointConnections/${res.body.id}`, { timeout: 121, retryMaxDelayMs: 70_000 });
    expect(upd.body).toMatchObject({ timeout: 120, retryMaxDelayMs: 60_000 });
    expect((await t.api.patch(`/endpointConnections/${res.body.id}`, { timeout: null })).body.timeout).toBe(15);
  });

  it('accepts whitespace inside the placeholder braces, a draft 2020-12 input schema and JSONPath mappings', async () => {
    const t = await setup();
    const res = await t.api.post(
      '/endpointConnections',
      t.body({
        inputTemplate: '{"q": "{{input.user_message}}", "lang": "{{ input.lang | default(\'en\') }}"}',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { lang: { type: 'string' } },
        },
        outputMapping: { output: '$.choices[0].message.content', traces: '$..steps' },
        rateLimit: 60,
        retryEnabled: true,
        headers: { 'X-Team': 'qa' },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ rateLimit: 60, retryEnabled: true, retryMaxAttempts: 3 });
  });

  const rules: [string, Record<string, unknown>, string | RegExp][] = [
    ['httpMethod enum', { httpMethod: 'HEAD' }, 'httpMethod must be one of: GET, POST, PUT, PATCH, DELETE'],
    ['authType enum', { authType: 'OAUTH' }, 'authType must be one of: NONE, BEARER, API_KEY, BASIC'],
    ['type enum', { type: 'CHAT' }, 'type must be one of: INITIALIZATION, CONVERSATION, FINALIZATION'],
    ['url is http(s)', { url: 'ftp://agent.example.com' }, 'url must be an absolute http or https URL'],
    ['url is absolute', { url: 'agent/chat' }, 'url must be an absolute http or https URL'],
    [
      'template parses',
      { inputTemplate: '{"m": "{{ input.user_message }}"} {% if %}' },
      /^inputTemplate is not a valid Nunjucks template/,
    ],
    [
      'template has the placeholder',
      { inputTemplate: '{"m": "{{ input.message }}"}' },
      'inputTemplate must contain the placeholder {{ input.user_message }}',
    ],
    ['outputMapping has output', { outputMapping: { answer: '$.a' } }, "outputMapping must contain the key 'output'"],
    [
      'outputMapping values are JSONPath',
      { outputMapping: { output: 'reply.text' } },
      'outputMapping.output is not a valid JSONPath expression: reply.text',
    ],
    ['outputMapping values are strings', { outputMapping: { output: 3 } }, 'outputMapping.output must be a string'],
    [
      'inputSchema type object',
      { inputSchema: { type: 'array', properties: {} } },
      "inputSchema must have type 'object'",
    ],
    ['inputSchema properties', { inputSchema: { type: 'object' } }, "inputSchema must have a 'properties' object"],
    [
      'inputSchema compiles',
      { inputSchema: { type: 'object', properties: { a: { type: 'strange' } } } },
      /^inputSchema is not a valid JSON Schema \(draft 2020-12\)/,
    ],
    ['timeout ≥ 1', { timeout: 0 }, 'timeout must be at least 1'],
    ['timeout integer', { timeout: 1.5 }, 'timeout must be an integer or null'],
    ['rateLimit ≥ 1', { rateLimit: 0 }, 'rateLimit must be at least 1'],
    ['retryMaxAttempts ≤ 10', { retryMaxAttempts: 11 }, 'retryMaxAttempts must be at most 10'],
    ['retryMaxAttempts ≥ 0', { retryMaxAttempts: -1 }, 'retryMaxAttempts must be at least 0'],
    [
      'retry enabled needs ≥ 1 attempt',
      { retryEnabled: true, retryMaxAttempts: 0 },
      'retryMaxAttempts must be at least 1 when retryEnabled is true',
    ],
    ['retryInitialDelayMs ≥ 0', { retryInitialDelayMs: -5 }, 'retryInitialDelayMs must be at least 0'],
    [
      'retryBackoffStrategy enum',
      { retryBackoffStrategy: 'RANDOM' },
      'retryBackoffStrategy must be one of: FIXED, EXPONENTIAL, LINEAR',
    ],
    ['retryMaxDelayMs ≥ 0', { retryMaxDelayMs: -1 }, 'retryMaxDelayMs must be at least 0'],
    ['retryableStatusCodes ≥ 100', { retryableStatusCodes: [99] }, 'retryableStatusCodes[0] must be at least 100'],
    ['retryableStatusCodes ≤ 599', { retryableStatusCodes: [500, 600] }, 'retryableStatusCodes[1] must be at most 599'],
    ['headers are strings', { headers: { 'X-A': 1 } }, 'headers.X-A must be a string'],
    ['BEARER needs a token', { authType: 'BEARER' }, 'authToken is required when authType is BEARER'],
    ['API_KEY needs a token', { authType: 'API_KEY' }, 'authToken is required when authType is API_KEY'],
    [
      'BASIC needs a username',
      { authType: 'BASIC', password: PASSWORD },
      'username is required when authType is BASIC',
    ],
    ['BASIC needs a password', { authType: 'BASIC', username: 'bot' }, 'password is required when authType is BASIC'],
    ['NONE takes no token', { authToken: TOKEN }, 'authToken must not be set when authType is NONE'],
    ['NONE takes no password', { password: PASSWORD }, 'password must not be set when authType is NONE'],
    ['server-managed flags', { hasAuthToken: true }, "unknown field 'hasAuthToken'"],
    ['name required', { name: undefined }, 'name is required'],
  ];
  it.each(rules)('rule: %s → 400', async (_rule, override, message) => {
    const t = await setup();
    const res = await t.api.post('/endpointConnections', t.body(override));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    if (typeof message === 'string') expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
  });

  it('enforces the same rules on update, against the merged record', async () => {
    const t = await setup();
    const c = (await t.api.post('/endpointConnections', t.body())).body;
    expect(
      (await t.api.patch(`/endpointConnections/${c.id}`, { retryEnabled: true, retryMaxAttempts: 0 })).body.message,
    ).toBe('retryMaxAttempts must be at least 1 when retryEnabled is true');
    expect((await t.api.patch(`/endpointConnections/${c.id}`, { authType: 'BEARER' })).body.message).toBe(
      'authToken is required when authType is BEARER',
    );
    expect((await t.api.patch(`/endpointConnections/${c.id}`, { outputMapping: { x: '$.x' } })).body.message).toBe(
      "outputMapping must contain the key 'output'",
    );
    expect((await t.api.patch(`/endpointConnections/${c.id}`, { productId: 'prod_x' })).body.message).toBe(
      'productId cannot be changed',
    );
    expect((await t.api.get(`/endpointConnections/${c.id}`)).body).toEqual(c);
  });

  it('keeps secrets write-only: flags on reads, replace, keep when omitted, clear with null or a change of authType', async () => {
    const t = await setup();
    const c = (await t.api.post('/endpointConnections', t.body({ authType: 'BEARER', authToken: TOKEN }))).body;
    expect(c).toMatchObject({ hasAuthToken: true, hasPassword: false });
    expect(c).not.toHaveProperty('authToken');
    const kept = await t.api.patch(`/endpointConnections/${c.id}`, { name: 'renamed' });
    expect(kept.body.hasAuthToken).toBe(true);
    expect((await t.api.patch(`/endpointConnections/${c.id}`, { authToken: `${TOKEN}-2` })).body.hasAuthToken).toBe(
      true,
    );
    expect((await t.api.patch(`/endpointConnections/${c.id}`, { authToken: null })).body.message).toBe(
      'authToken is required when authType is BEARER',
    );
    const basic = await t.api.patch(`/endpointConnections/${c.id}`, {
      authType: 'BASIC',
      username: 'bot',
      password: PASSWORD,
    });
    expect(basic.body).toMatchObject({ authType: 'BASIC', hasAuthToken: false, hasPassword: true, username: 'bot' });
    const none = await t.api.patch(`/endpointConnections/${c.id}`, { authType: 'NONE' });
    expect(none.body).toMatchObject({ authType: 'NONE', hasAuthToken: false, hasPassword: false, username: null });
  });

  it('never returns a secret in any response body of its routes', async () => {
    const t = await setup();
    const other = await newTenant();
    const bodies: unknown[] = [];
    const record = async (p: Promise<{ body: unknown; headers: Record<string, string> }>) => {
      const r = await p;
      bodies.push(r.body, r.headers);
      return r;
    };
    const bearer = (await record(t.api.post('/endpointConnections', t.body({ authType: 'BEARER', authToken: TOKEN }))))
      .body as { id: string };
    const basic = (
      await record(t.api.post('/endpointConnections', t.body({ authType: 'BASIC', username: 'u', password: PASSWORD })))
    ).body as { id: string };
    await record(t.api.post('/endpointConnections', t.body({ authType: 'NONE', authToken: TOKEN })));
    await record(
      t.api.post('/endpointConnections', t.body({ authType: 'BEARER', authToken: TOKEN, outputMapping: {} })),
    );
    for (const id of [bearer.id, basic.id]) {
      await record(t.api.get(`/endpointConnections/${id}`));
      await record(other.api.get(`/endpointConnections/${id}`));
    }
    await record(t.api.get('/endpointConnections'));
    await record(t.api.get('/endpointConnections', { authTypes: 'BEARER,BASIC' }));
    await record(t.api.patch(`/endpointConnections/${bearer.id}`, { authToken: `${TOKEN}x` }));
    await record(t.api.patch(`/endpointConnections/${bearer.id}`, { authToken: PASSWORD, authType: 'NONE' }));
    await record(t.api.del(`/endpointConnections/${basic.id}`));
    await record(t.api.get(`/endpointConnections/${basic.id}`));
    const all = JSON.stringify(bodies);
    expect(all).not.toContain('SUPERSECRET');
    expect(all).not.toContain('HUSH');
    expect(bodies.length).toBeGreaterThan(20);
  });

  it('lists with every filter, sort, limit, offset and X-Total-Count', async () => {
    const t = await setup();
    const p2 = await createProduct(t.api, { name: 'second' });
    const make = (o: Record<string, unknown>) =>
      t.api.post('/endpointConnections', t.body(o)).then((r) => r.body as { id: string });
    const a = await make({
      name: 'alpha chat',
      url: 'https://a.example.com/chat',
      type: 'CONVERSATION',
      httpMethod: 'POST',
    });
    const b = await make({
      name: 'beta init',
      url: 'https://b.example.com/init',
      type: 'INITIALIZATION',
      httpMethod: 'PUT',
      authType: 'BEARER',
      authToken: TOKEN,
    });
    const c = await make({
      name: 'gamma end',
      url: 'https://c.example.com/end',
      type: 'FINALIZATION',
      httpMethod: 'GET',
      productId: p2.id,
    });
    const ids = (q: Record<string, string | number>) =>
      t.api.get('/endpointConnections', q).then((r) => (r.body as { id: string }[]).map((x) => x.id).sort());
    expect(await ids({ ids: `${a.id},${c.id}` })).toEqual([a.id, c.id].sort());
    expect(await ids({ productIds: p2.id })).toEqual([c.id]);
    expect(await ids({ names: 'beta init' })).toEqual([b.id]);
    expect(await ids({ name: 'AMMA' })).toEqual([c.id]);
    expect(await ids({ url: 'B.EXAMPLE' })).toEqual([b.id]);
    expect(await ids({ types: 'INITIALIZATION,FINALIZATION' })).toEqual([b.id, c.id].sort());
    expect(await ids({ httpMethods: 'GET' })).toEqual([c.id]);
    expect(await ids({ authTypes: 'BEARER' })).toEqual([b.id]);
    const created = (await t.api.get(`/endpointConnections/${b.id}`)).body.createdAt;
    expect(await ids({ fromCreatedAt: created, toCreatedAt: created })).toEqual([b.id]);
    const sorted = await t.api.get('/endpointConnections', { sort: 'name:desc', limit: 2, offset: 0 });
    expect(sorted.body.map((x: { name: string }) => x.name)).toEqual(['gamma end', 'beta init']);
    expect(sorted.headers['x-total-count']).toBe('3');
    expect((await t.api.get('/endpointConnections', { types: 'CHAT' })).body.message).toMatch(
      /^types\[0\] must be one of/,
    );
    expect((await t.api.get('/endpointConnections', { sort: 'secret:asc' })).status).toBe(400);
  });

  it("answers 403 for another organization's connection, 404 for none, and treats deleted ones as absent", async () => {
    const t = await setup();
    const other = await newTenant();
    const c = (await t.api.post('/endpointConnections', t.body())).body;
    expect((await other.api.get(`/endpointConnections/${c.id}`)).status).toBe(403);
    expect((await other.api.patch(`/endpointConnections/${c.id}`, { name: 'x' })).status).toBe(403);
    expect((await other.api.del(`/endpointConnections/${c.id}`)).status).toBe(403);
    expect((await other.api.get('/endpointConnections')).body).toEqual([]);
    expect((await t.api.get('/endpointConnections/econ_none')).status).toBe(404);
    const del = await t.api.del(`/endpointConnections/${c.id}`);
    expect(del.body).toEqual({ id: c.id, deletedAt: expect.any(String) });
    expect((await t.api.get(`/endpointConnections/${c.id}`)).body.deletedAt).toBe(del.body.deletedAt);
    expect((await t.api.get('/endpointConnections')).body).toEqual([]);
    expect((await t.api.patch(`/endpointConnections/${c.id}`, { name: 'x' })).status).toBe(404);
    expect((await t.api.del(`/endpointConnections/${c.id}`)).status).toBe(404);
  });
});
