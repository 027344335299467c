import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { callAgent, type AgentConnection, type CallResult } from '../../shared/domain/runs/caller/index.js';
import { takeRateSlot } from '../../shared/db/rate-limits.js';
import { echoAgent, sendJson, startAgent } from '../support/agent-server.js';
import { fakeClock, gate } from '../support/fake-clock.js';

const TOKEN = 'tok-AGENT-SECRET-93f1';
const PASSWORD = 'pw-AGENT-HUSH-55c2';

let agent: Awaited<ReturnType<typeof startAgent>>;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A fresh handler and request log per test. */
function use(handler: Parameters<typeof agent.setHandler>[0] = echoAgent) {
  agent.requests.length = 0;
  agent.setHandler(handler);
}

const conn = (overrides: Partial<AgentConnection> = {}): AgentConnection => ({
  id: 'econ_test',
  url: `${agent.url}/chat`,
  httpMethod: 'POST',
  authType: 'NONE',
  inputTemplate: '{"message": "{{ input.user_message }}", "session": "{{ session_id }}"}',
  outputMapping: { output: '$.reply' },
  timeout: 5,
  ...overrides,
});
const vars = (message = 'Hello "agent"\nline 2 — ünïcode', extra: Record<string, unknown> = {}) => ({
  input: { user_message: message },
  inference_result_id: 'inf_01TEST',
  ...extra,
});
const local = { allowPrivateNetworks: true };

function expectNoSecret(result: CallResult) {
  const text = JSON.stringify(result);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(Buffer.from(`ann:${PASSWORD}`).toString('base64'));
}

describe('callAgent against local agents', () => {
  it('echo: sends the rendered body with every header, maps the answer, and redacts the token', async () => {
    use();
    const result = await callAgent(
      conn({ authType: 'BEARER', authToken: TOKEN, headers: { 'X-Team': 'qa' } }),
      vars(),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', output: 'Hello "agent"\nline 2 — ünïcode', attempts: 1 });
    expect(agent.requests).toHaveLength(1);
    const seen = agent.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.json).toEqual({ message: 'Hello "agent"\nline 2 — ünïcode', session: '' });
    expect(seen.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen.headers['x-inference-result-id']).toBe('inf_01TEST');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['user-agent']).toMatch(/^eval-platform-api\//);
    expect(seen.headers['x-team']).toBe('qa');
    if (result.kind !== 'ok') throw new Error('expected ok');
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result.exchange.request.headers.Authorization).toBe('Bearer ***');
    expect(result.exchange.response?.status).toBe(200);
    // The agent echoed our headers: the token is redacted in the recorded answer too.
    expect(result.exchange.response?.body).toContain('Bearer ***');
    expectNoSecret(result);
  });

  it('BASIC and API_KEY credentials reach the agent and never the result', async () => {
    use();
    const basic = await callAgent(conn({ authType: 'BASIC', username: 'ann', password: PASSWORD }), vars('x'), local);
    expect(agent.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`ann:${PASSWORD}`).toString('base64')}`);
    expect(basic.kind).toBe('ok');
    expectNoSecret(basic);
    const apiKey = await callAgent(conn({ authType: 'API_KEY', authToken: TOKEN }), vars('x'), local);
    expect(agent.requests[1]!.headers['x-api-key']).toBe(TOKEN);
    expectNoSecret(apiKey);
  });

  it('GET sends the rendered object as query parameters; the URL template takes the session id', async () => {
    use();
    const result = await callAgent(
      conn({
        httpMethod: 'GET',
        url: `${agent.url}/sessions/{{ session_id }}/ask`,
        inputTemplate: '{"message": "{{ input.user_message }}", "lang": "{{ language_code }}"}',
      }),
      vars('what & why?', { session_id: 'agent-s/1', language_code: 'de' }),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', output: 'what & why?' });
    const seen = agent.requests[0]!;
    expect(seen.method).toBe('GET');
    expect(seen.url.startsWith('/sessions/agent-s%2F1/ask?')).toBe(true);
    expect(seen.query).toEqual({ message: ['what & why?'], lang: ['de'] });
    expect(seen.body).toBe('');
  });

  it('slow agent: an attempt past the timeout is retried, and latency is the successful attempt', async () => {
    // The first request is never answered: its attempt ends when its 1 s timeout expires.
    const first = gate();
    use((req, res, i) => (i === 0 ? first.open() : echoAgent(req, res, i)));
    const time = fakeClock({ expire: (_ms, i) => (i === 0 ? first.next() : undefined) });
    const result = await callAgent(
      conn({
        timeout: 1,
        retryEnabled: true,
        retryMaxAttempts: 2,
        retryBackoffStrategy: 'FIXED',
        retryInitialDelayMs: 100,
      }),
      vars('hi'),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', output: 'hi', attempts: 2 });
    expect(agent.requests).toHaveLength(2);
    expect(time.timeouts).toEqual([1000, 1000]);
    expect(time.waits).toEqual([100]);
    // On the clock the first attempt took its 1000 ms and the retry none: the latency is the retry's.
    if (result.kind === 'ok') expect(result.latencyMs).toBe(0);
  });

  it('slow agent without retries fails naming the timeout', async () => {
    const arrived = gate();
    use(() => arrived.open());
    const time = fakeClock({ expire: () => arrived.next() });
    const result = await callAgent(conn({ timeout: 1 }), vars('hi'), local);
    expect(result).toMatchObject({ kind: 'failed', attempts: 1, error: 'the agent did not answer within 1 s' });
    expect(time.timeouts).toEqual([1000]);
    expect(agent.requests).toHaveLength(1);
  });

  it('503 twice then 200: three requests, gaps follow the EXPONENTIAL strategy', async () => {
    use((req, res, i) => (i < 2 ? sendJson(res, 503, { error: 'busy' }) : echoAgent(req, res, i)));
    const time = fakeClock();
    const result = await callAgent(
      conn({
        retryEnabled: true,
        retryMaxAttempts: 3,
        retryBackoffStrategy: 'EXPONENTIAL',
        retryInitialDelayMs: 200,
        retryMaxDelayMs: 5000,
        retryableStatusCodes: [503],
      }),
      vars('again'),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', output: 'again', attempts: 3 });
    expect(agent.requests).toHaveLength(3);
    expect(time.waits).toEqual([200, 400]);
    // Every attempt carries the same turn id and body.
    expect(new Set(agent.requests.map((r) => r.headers['x-inference-result-id']))).toEqual(new Set(['inf_01TEST']));
    expect(new Set(agent.requests.map((r) => r.body)).size).toBe(1);
  });

  it('503 on every attempt fails after the last retry, quoting the answer', async () => {
    use((_req, res) => sendJson(res, 503, { error: 'still busy' }));
    const time = fakeClock();
    const result = await callAgent(
      conn({
        retryEnabled: true,
        retryMaxAttempts: 2,
        retryBackoffStrategy: 'LINEAR',
        retryInitialDelayMs: 20,
        retryableStatusCodes: [503],
      }),
      vars(),
      local,
    );
    expect(result).toMatchObject({
      kind: 'failed',
      attempts: 3,
      error: 'the agent answered 503: {"error":"still busy"} (after 3 attempts)',
    });
    expect(agent.requests).toHaveLength(3);
    expect(time.waits).toEqual([20, 40]);
  });

  it('429 with Retry-After in seconds: the longer wait wins', async () => {
    use((req, res, i) =>
      i === 0 ? sendJson(res, 429, { error: 'slow down' }, { 'Retry-After': '1' }) : echoAgent(req, res, i),
    );
    const time = fakeClock();
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 1, retryBackoffStrategy: 'FIXED', retryInitialDelayMs: 50 }),
      vars('r'),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', attempts: 2 });
    expect(agent.requests).toHaveLength(2);
    // Retry-After's 1000 ms, not the strategy's 50.
    expect(time.waits).toEqual([1000]);
  });

  it('429 with Retry-After as an HTTP date', async () => {
    // An HTTP date has whole seconds: the clock stands at one, 2 s before the date.
    const start = Date.parse('2031-03-01T12:00:00.000Z');
    use((req, res, i) =>
      i === 0
        ? sendJson(res, 429, {}, { 'Retry-After': new Date(start + 2000).toUTCString() })
        : echoAgent(req, res, i),
    );
    const time = fakeClock({ start });
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 1, retryBackoffStrategy: 'FIXED', retryInitialDelayMs: 50 }),
      vars('r'),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', attempts: 2 });
    expect(time.waits).toEqual([2000]);
  });

  it('Retry-After beyond retryMaxDelayMs is capped', async () => {
    use((req, res, i) => (i === 0 ? sendJson(res, 429, {}, { 'Retry-After': '30' }) : echoAgent(req, res, i)));
    const time = fakeClock();
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 1, retryInitialDelayMs: 10, retryMaxDelayMs: 300 }),
      vars('r'),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', attempts: 2 });
    expect(time.waits).toEqual([300]);
  });

  it('a 400 fails at once with one attempt, even with retries on', async () => {
    use((_req, res) => sendJson(res, 400, { error: 'message is required' }));
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 3, retryInitialDelayMs: 10 }),
      vars(),
      local,
    );
    expect(result).toMatchObject({
      kind: 'failed',
      attempts: 1,
      error: 'the agent answered 400: {"error":"message is required"}',
    });
    expect(agent.requests).toHaveLength(1);
    if (result.kind === 'failed') expect(result.exchange?.response?.status).toBe(400);
  });

  it('quotes at most 500 characters of a failed answer', async () => {
    use((_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end('E'.repeat(2000));
    });
    const result = await callAgent(conn({ retryableStatusCodes: [] }), vars(), local);
    if (result.kind !== 'failed') throw new Error('expected failed');
    expect(result.error).toBe(`the agent answered 500: ${'E'.repeat(500)}…`);
  });

  it('non-JSON text is mapped whole by `$`', async () => {
    use((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('Just text, {not JSON');
    });
    expect(await callAgent(conn({ outputMapping: { output: '$' } }), vars(), local)).toMatchObject({
      kind: 'ok',
      output: 'Just text, {not JSON',
    });
    const missing = await callAgent(conn(), vars(), local);
    expect(missing).toMatchObject({ kind: 'failed', attempts: 1 });
    if (missing.kind === 'failed')
      expect(missing.error).toBe(
        'the answer has no output: outputMapping.output ($.reply) matched nothing; the answer was: Just text, {not JSON',
      );
  });

  it('maps every key of a rich answer', async () => {
    use((_req, res) =>
      sendJson(res, 200, {
        data: { text: { parts: ['a', 'b'] } },
        docs: ['d1', 'd2'],
        steps: [{ name: 'lookup' }],
        usage: { input_tokens: 10, output_tokens: 4 },
        sid: 's-77',
        mood: 'calm',
      }),
    );
    const result = await callAgent(
      conn({
        outputMapping: {
          output: '$.data.text',
          retrieval_context: '$.docs',
          traces: '$.steps',
          usage: '$.usage',
          session_id: '$.sid',
          mood: '$.mood',
        },
      }),
      vars(),
      local,
    );
    expect(result).toMatchObject({
      kind: 'ok',
      output: '{"parts":["a","b"]}',
      retrievalContext: ['d1', 'd2'],
      traces: [{ name: 'lookup' }],
      usage: { inputTokens: 10, outputTokens: 4 },
      sessionId: 's-77',
      extracted: { mood: 'calm', session_id: 's-77' },
    });
  });

  it('an answer larger than 5 MiB fails the turn (streamed, no Content-Length)', async () => {
    use((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 6; i++) res.write(chunk);
      res.end();
    });
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 2, retryInitialDelayMs: 10 }),
      vars(),
      local,
    );
    expect(result).toMatchObject({
      kind: 'failed',
      attempts: 1,
      error: 'the answer is larger than 5 MiB (status 200)',
    });
  });

  it('an answer declaring more than 5 MiB fails before it is read', async () => {
    use((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(6 * 1024 * 1024) });
      res.write('{"reply": "');
    });
    const result = await callAgent(conn(), vars(), local);
    expect(result).toMatchObject({ kind: 'failed', error: 'the answer is larger than 5 MiB (status 200)' });
  });

  it('a dropped connection is a network error, retried when retries are on', async () => {
    use((_req, res) => res.socket?.destroy());
    const failed = await callAgent(conn(), vars(), local);
    expect(failed).toMatchObject({ kind: 'failed', attempts: 1 });
    if (failed.kind === 'failed') expect(failed.error).toMatch(/^the connection to the agent failed: /);

    use((req, res, i) => (i === 0 ? res.socket?.destroy() : echoAgent(req, res, i)));
    const retried = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 1, retryInitialDelayMs: 10 }),
      vars('back'),
      local,
    );
    expect(retried).toMatchObject({ kind: 'ok', output: 'back', attempts: 2 });
  });

  it('a connection dropped in the middle of the body fails', async () => {
    use((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"reply": "partial');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await callAgent(conn(), vars(), local);
    expect(result).toMatchObject({ kind: 'failed', attempts: 1 });
    if (result.kind === 'failed') expect(result.error).toMatch(/^the connection to the agent failed: /);
  });

  it('redirects are not followed', async () => {
    use((_req, res) => {
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    });
    const result = await callAgent(conn(), vars(), local);
    expect(result).toMatchObject({
      kind: 'failed',
      attempts: 1,
      error: 'the agent answered 302 (redirects are not followed; Location: http://169.254.169.254/latest/meta-data/)',
    });
    expect(agent.requests).toHaveLength(1);
  });

  it('the network guard refuses loopback unless private networks are allowed, including a name that resolves there', async () => {
    use();
    const literal = await callAgent(conn(), vars(), { allowPrivateNetworks: false });
    expect(literal).toMatchObject({ kind: 'failed', attempts: 1, error: 'address not allowed: 127.0.0.1 is loopback' });
    const byName = await callAgent(conn({ url: `${agent.url.replace('127.0.0.1', 'localhost')}/chat` }), vars(), {
      allowPrivateNetworks: false,
    });
    expect(byName).toMatchObject({ kind: 'failed', attempts: 1 });
    if (byName.kind === 'failed') expect(byName.error).toMatch(/^address not allowed: (127\.0\.0\.1|::1) is loopback$/);
    const metadata = await callAgent(conn({ url: 'http://[::ffff:a9fe:a9fe]/latest' }), vars(), {
      allowPrivateNetworks: true,
    });
    expect(metadata).toMatchObject({ kind: 'failed', error: 'address not allowed: ::ffff:a9fe:a9fe is link-local' });
    expect(agent.requests).toHaveLength(0);
    // The environment decides when the option is not given.
    const before = process.env.AGENT_ALLOW_PRIVATE_NETWORKS;
    process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
    try {
      expect((await callAgent(conn(), vars('env'))).kind).toBe('ok');
    } finally {
      if (before === undefined) delete process.env.AGENT_ALLOW_PRIVATE_NETWORKS;
      else process.env.AGENT_ALLOW_PRIVATE_NETWORKS = before;
    }
  });

  it('a name resolving to several addresses reaches the agent on whichever it listens (localhost: ::1 and 127.0.0.1)', async () => {
    use();
    const result = await callAgent(
      conn({ url: `${agent.url.replace('127.0.0.1', 'localhost')}/chat` }),
      vars('by name'),
      local,
    );
    expect(result).toMatchObject({ kind: 'ok', output: 'by name' });
    expect(agent.requests[0]!.headers.host).toBe(agent.url.replace('http://127.0.0.1', 'localhost'));
  });

  it('a body that is not JSON after rendering fails before any call', async () => {
    use();
    const result = await callAgent(
      conn({ inputTemplate: '{"message": {{ input.user_message }}}' }),
      vars('plain words'),
      local,
    );
    expect(result).toMatchObject({ kind: 'failed', attempts: 0 });
    if (result.kind === 'failed') expect(result.error).toMatch(/^the rendered inputTemplate is not valid JSON: /);
    expect(agent.requests).toHaveLength(0);
  });

  it('no rate slot: back on the queue with the wait, no attempt spent', async () => {
    use();
    const retryAt = Date.now() + 4000;
    const result = await callAgent(conn(), vars(), { ...local, takeSlot: async () => ({ ok: false, retryAt }) });
    expect(result).toMatchObject({ kind: 'requeue', reason: 'rate_limited', attempts: 0 });
    if (result.kind === 'requeue') expect(result.delayMs).toBeGreaterThan(3500);
    expect(agent.requests).toHaveLength(0);
  });

  it('retries take rate slots too (real tokens): the retry waits for its slot', async () => {
    use((req, res, i) => (i === 0 ? sendJson(res, 503, {}) : echoAgent(req, res, i)));
    const connection = conn({
      id: `econ_rl_${Date.now()}`,
      rateLimit: 30,
      retryEnabled: true,
      retryMaxAttempts: 1,
      retryInitialDelayMs: 10,
      retryableStatusCodes: [503],
    });
    const time = fakeClock();
    const takeSlot = () => takeRateSlot(connection.id, 30, time.now());
    const first = await callAgent(connection, vars('rl'), { ...local, takeSlot });
    // The retry (10 ms later) found the slot taken by the first attempt (one per 2 s): back on the queue.
    expect(first).toMatchObject({ kind: 'requeue', reason: 'rate_limited', attempts: 1, delayMs: 1990 });
    expect(time.waits).toEqual([10]);
    if (first.kind !== 'requeue') throw new Error('expected requeue');
    time.advance(first.delayMs);
    const second = await callAgent(connection, vars('rl'), { ...local, takeSlot, attemptsSoFar: first.attempts });
    expect(second).toMatchObject({ kind: 'ok', attempts: 2 });
    expect(agent.requests).toHaveLength(2);
  });

  it('a retry wait that does not fit the remaining time goes back on the queue', async () => {
    use((_req, res) => sendJson(res, 503, {}, { 'Retry-After': '20' }));
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 2, retryInitialDelayMs: 100, retryMaxDelayMs: 60_000 }),
      vars(),
      { ...local, remainingMs: 5000 },
    );
    expect(result).toMatchObject({
      kind: 'requeue',
      reason: 'retry_wait',
      delayMs: 20_000,
      attempts: 1,
      lastError: 'the agent answered 503: {}',
    });
    if (result.kind === 'requeue') expect(result.exchange?.response?.status).toBe(503);
    expect(agent.requests).toHaveLength(1);
  });

  it('no time left for an attempt: back on the queue without a slot or an attempt', async () => {
    use();
    let slots = 0;
    const result = await callAgent(conn(), vars(), {
      ...local,
      remainingMs: 300,
      takeSlot: async () => {
        slots++;
        return { ok: true };
      },
    });
    expect(result).toEqual({ kind: 'requeue', reason: 'retry_wait', delayMs: 0, attempts: 0 });
    expect(slots).toBe(0);
    expect(agent.requests).toHaveLength(0);
  });

  it('an attempt never runs past the remaining time', async () => {
    const arrived = gate();
    use(() => arrived.open());
    const time = fakeClock({ expire: () => arrived.next() });
    const result = await callAgent(conn({ timeout: 30 }), vars(), { ...local, remainingMs: 1500 });
    expect(result).toMatchObject({ kind: 'failed', attempts: 1, error: 'the agent did not answer within 1.5 s' });
    // The attempt ran under the 1.5 s left, not the connection's 30 s.
    expect(time.timeouts).toEqual([1500]);
    expect(time.waits).toEqual([]);
  });

  it('a cancelled call stops waiting', async () => {
    use((_req, res) => sendJson(res, 503, {}));
    const controller = new AbortController();
    // Cancelled while it waits 5 s for its first retry: the wait never ends by itself.
    const time = fakeClock({
      hold: () => {
        controller.abort();
        return new Promise(() => undefined);
      },
    });
    const result = await callAgent(
      conn({ retryEnabled: true, retryMaxAttempts: 3, retryInitialDelayMs: 5000 }),
      vars(),
      { ...local, signal: controller.signal },
    );
    expect(result).toMatchObject({ kind: 'failed', error: 'the call was cancelled', attempts: 1 });
    expect(time.waits).toEqual([5000]);
    expect(agent.requests).toHaveLength(1);
  });
});
