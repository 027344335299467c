import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GatewayRequest } from '../../infra/local/gateway.js';

// A gateway whose `/boom` throws as nothing in it should: the server's guard must catch it.
vi.mock('../../infra/local/gateway.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../infra/local/gateway.js')>()),
  dispatch: async (req: GatewayRequest) => {
    if (req.path === '/boom') throw new Error('internal detail: table eval-platform-local');
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"ok":true}' };
  },
}));

const { createLocalServer } = await import('../../infra/local/server.js');
const { GATEWAY_BODIES } = await import('../../shared/http/errors.js');

function listen(server: Server): Promise<string> {
  return new Promise((res) =>
    server.listen(0, '127.0.0.1', () => res(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

describe('the local server guard', () => {
  let ready = false;
  const server = createLocalServer({ invokeSecret: 'test-secret', quiet: true, isReady: () => ready });
  let base = '';
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((res) => server.close(() => res())));

  it('answers 503 while the runtime is starting', async () => {
    ready = false;
    const res = await fetch(`${base}/fine`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'Service Unavailable', message: expect.stringContaining('starting') });
  });

  it('answers 500 without internals when the handler throws, logs it, and keeps serving', async () => {
    ready = true;
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(GATEWAY_BODIES.default5xx);
    expect(text).not.toContain('internal detail');
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('GET /boom failed unexpectedly'), expect.any(Error));
    logged.mockRestore();
    expect((await fetch(`${base}/fine`)).status).toBe(200);
  });
});
