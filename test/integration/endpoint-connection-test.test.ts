import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newTenant } from '../support/api.js';
import { connectionBody, createProduct } from '../support/fixtures.js';
import { echoAgent, sendJson, startAgent } from '../support/agent-server.js';
import { fakeClock } from '../support/fake-clock.js';

const TOKEN = 'tok-TESTROUTE-SECRET-d41c';
const PASSWORD = 'pw-TESTROUTE-HUSH-8e0b';

let agent: Awaited<ReturnType<typeof startAgent>>;
let allowBefore: string | undefined;
beforeAll(async () => {
  agent = await startAgent();
  allowBefore = process.env.AGENT_ALLOW_PRIVATE_NETWORKS;
  // The test agent listens on 127.0.0.1, as a developer's agent does under `npm start`.
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
});
afterAll(async () => {
  await agent.close();
  if (allowBefore === undefined) delete process.env.AGENT_ALLOW_PRIVATE_NETWORKS;
  else process.env.AGENT_ALLOW_PRIVATE_NETWORKS = allowBefore;
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function setup(overrides: Record<string, unknown> = {}) {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const res = await t.api.post(
    '/endpointConnections',
    connectionBody(product.id, {
      url: `${agent.url}/chat/{{ session_id }}`,
      inputTemplate: '{"message": "{{ input.user_message }}", "lang": "{{ input.lang }}", "context": "{{ context }}"}',
      outputMapping: { output: '$.reply', host: '$.headers.host' },
      authType: 'BEARER',
      authToken: TOKEN,
      ...overrides,
    }),
  );
  expect(res.status).toBe(201);
  return { ...t, product, connection: res.body as { id: string } };
}

describe('POST /endpointConnections/{id}/test', () => {
  it('makes one real call and shows what was sent and received, with secrets replaced by ***', async () => {
    const t = await setup();
    agent.requests.length = 0;
    agent.setHandler(echoAgent);
    const res = await t.api.post(`/endpointConnections/${t.connection.id}/test`, {
      input: { user_message: 'Where is "my" refund?', lang: 'en' },
      context: 'order 42',
      variables: { session_id: 'agent-sess-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      request: {
        method: 'POST',
        url: `${agent.url}/chat/agent-sess-1`,
        body: '{"message": "Where is \\"my\\" refund?", "lang": "en", "context": "order 42"}',
      },
      response: { status: 200 },
      extracted: { output: 'Where is "my" refund?', host: agent.url.slice('http://'.length) },
      attempts: 1,
      error: null,
    });
    expect(res.body.request.headers).toMatchObject({
      Authorization: 'Bearer ***',
      'Content-Type': 'application/json',
      'X-Inference-Result-Id': expect.stringMatching(/^inf_/),
    });
    expect(typeof res.body.latencyMs).toBe('number');
    // The agent got the real token; the answer (which echoes it) shows ***.
    expect(agent.requests).toHaveLength(1);
    expect(agent.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(agent.requests[0]!.url).toBe('/chat/agent-sess-1');
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    expect(res.body.response.body).toContain('Bearer ***');
  });

  it('stores nothing: the connection is unchanged and the turn id the agent saw names no turn', async () => {
    const t = await setup();
    agent.requests.length = 0;
    agent.setHandler(echoAgent);
    const before = await t.api.get(`/endpointConnections/${t.connection.id}`);
    expect(
      (await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'hi' } })).body.error,
    ).toBeNull();
    expect((await t.api.get(`/endpointConnections/${t.connection.id}`)).body).toEqual(before.body);
    const turnId = agent.requests[0]!.headers['x-inference-result-id'];
    expect(turnId).toMatch(/^inf_/);
    expect((await t.api.get(`/inferenceResults/${turnId}`)).status).toBe(404);
  });

  it("reports the agent's failure in 200 with the error, never as a 5xx", async () => {
    const t = await setup({
      authType: 'BASIC',
      authToken: undefined,
      username: 'ann',
      password: PASSWORD,
      retryEnabled: true,
      retryMaxAttempts: 2,
      retryInitialDelayMs: 10,
      retryBackoffStrategy: 'FIXED',
    });
    agent.requests.length = 0;
    agent.setHandler((req, res) => sendJson(res, 503, { error: 'down', sawAuth: req.headers.authorization }));
    const res = await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'hi' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      attempts: 3,
      extracted: {},
      response: { status: 503 },
      request: { headers: { Authorization: 'Basic ***' } },
    });
    expect(res.body.error).toBe('the agent answered 503: {"error":"down","sawAuth":"Basic ***"} (after 3 attempts)');
    expect(agent.requests).toHaveLength(3);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(Buffer.from(`ann:${PASSWORD}`).toString('base64'));
  });

  it('a template that renders invalid JSON is reported without a call', async () => {
    const t = await setup({ inputTemplate: '{"message": "{{ input.user_message }}", "n": {{ count }}}' });
    agent.requests.length = 0;
    const res = await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'hi' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ request: null, response: null, attempts: 0 });
    expect(res.body.error).toMatch(/^the rendered inputTemplate is not valid JSON: /);
    expect(agent.requests).toHaveLength(0);
  });

  it('a rate-limited connection waits for its slot within the call', async () => {
    const t = await setup({ rateLimit: 60 });
    agent.setHandler(echoAgent);
    const time = fakeClock();
    const first = await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'one' } });
    expect(time.waits).toEqual([]);
    const second = await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'two' } });
    expect(first.body.error).toBeNull();
    expect(second.body).toMatchObject({ error: null, extracted: { output: 'two' } });
    // 60 per minute, and no time passed since the first call: the second waited the whole second for its slot.
    expect(time.waits).toEqual([1000]);
  });

  it('a wait longer than the test call may take is reported, not waited for', async () => {
    const t = await setup({
      rateLimit: 1,
      retryEnabled: true,
      retryMaxAttempts: 1,
      retryInitialDelayMs: 10,
      retryMaxDelayMs: 60_000,
    });
    agent.setHandler((_req, res) => sendJson(res, 503, { error: 'busy' }, { 'Retry-After': '40' }));
    const time = fakeClock();
    const retry = await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'x' } });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({
      attempts: 1,
      response: { status: 503 },
      error:
        'the agent answered 503: {"error":"busy"}; the next retry would wait 40 s, longer than a test call may take (25 s); a run would retry later',
    });
    // The one slot per minute is taken: the next test call reports the rate limit at once.
    const limited = await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'x' } });
    expect(limited.status).toBe(200);
    expect(limited.body).toMatchObject({ attempts: 0, request: null, response: null });
    expect(limited.body.error).toBe(
      "the connection's rate limit (1 per minute) has no free slot for 60 s; a run would wait for it",
    );
    // Neither wait was waited for.
    expect(time.waits).toEqual([]);
  });

  it.each([
    [{}, 'input is required'],
    [{ input: 'hello' }, 'input must be an object'],
    [{ input: {} }, 'input.user_message is required'],
    [{ input: { user_message: 3 } }, 'input.user_message must be a string'],
    [{ input: { user_message: 'x' }, extra: 1 }, "unknown field 'extra'"],
    [
      { input: { user_message: 'x' }, variables: { input: {} } },
      'variables.input is not allowed: the input field sets it',
    ],
    [{ input: { user_message: 'x' }, context: 5 }, 'context must be a string'],
  ])('400 for %j', async (body, message) => {
    const t = await setup();
    const res = await t.api.post(`/endpointConnections/${t.connection.id}/test`, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Bad Request', message: expect.stringContaining(message) });
  });

  it("403 for another organization's connection, 404 for an unknown or deleted one", async () => {
    const t = await setup();
    const other = await newTenant();
    const foreign = await other.api.post(`/endpointConnections/${t.connection.id}/test`, {
      input: { user_message: 'x' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('Forbidden');
    const unknown = await t.api.post('/endpointConnections/econ_01UNKNOWN000000000000000000/test', {
      input: { user_message: 'x' },
    });
    expect(unknown.status).toBe(404);
    expect((await t.api.del(`/endpointConnections/${t.connection.id}`)).status).toBe(200);
    expect(
      (await t.api.post(`/endpointConnections/${t.connection.id}/test`, { input: { user_message: 'x' } })).status,
    ).toBe(404);
  });

  it('needs a key', async () => {
    const t = await setup();
    const { call } = await import('../support/api.js');
    expect(
      (await call('POST', `/endpointConnections/${t.connection.id}/test`, { body: { input: { user_message: 'x' } } }))
        .status,
    ).toBe(401);
  });
});

describe('literal refused addresses in url are a 400 at create and update', () => {
  it.each([
    ['http://169.254.169.254/latest', 'url must not point at a refused address: 169.254.169.254 is link-local'],
    ['http://[::ffff:169.254.169.254]/x', 'url must not point at a refused address: ::ffff:a9fe:a9fe is link-local'],
    ['http://0.0.0.0:8080/x', 'url must not point at a refused address: 0.0.0.0 is unspecified'],
    ['http://224.0.0.1/x', 'url must not point at a refused address: 224.0.0.1 is multicast'],
    ['http://[fe80::1]/x', 'url must not point at a refused address: fe80::1 is link-local'],
    ['http://2852039166/x', 'url must not point at a refused address: 169.254.169.254 is link-local'],
  ])('always: %s', async (url, message) => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const res = await t.api.post('/endpointConnections', connectionBody(product.id, { url }));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('loopback and private literals only when AGENT_ALLOW_PRIVATE_NETWORKS=true; names are checked at call time', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    expect(
      (await t.api.post('/endpointConnections', connectionBody(product.id, { url: 'http://127.0.0.1:9/x' }))).status,
    ).toBe(201);
    const created = await t.api.post(
      '/endpointConnections',
      connectionBody(product.id, { url: 'https://agent.example.com/x' }),
    );
    process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'false';
    try {
      const loop = await t.api.post(
        '/endpointConnections',
        connectionBody(product.id, { url: 'http://127.0.0.1:9/x' }),
      );
      expect(loop.status).toBe(400);
      expect(loop.body.message).toBe('url must not point at a refused address: 127.0.0.1 is loopback');
      const upd = await t.api.patch(`/endpointConnections/${created.body.id}`, { url: 'http://10.0.0.8/agent' });
      expect(upd.status).toBe(400);
      expect(upd.body.message).toBe('url must not point at a refused address: 10.0.0.8 is private (RFC 1918)');
      expect(
        (await t.api.post('/endpointConnections', connectionBody(product.id, { url: 'http://localhost:9/x' }))).status,
      ).toBe(201);
      expect(
        (await t.api.post('/endpointConnections', connectionBody(product.id, { url: 'http://93.184.216.34/x' })))
          .status,
      ).toBe(201);
    } finally {
      process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
    }
  });
});
