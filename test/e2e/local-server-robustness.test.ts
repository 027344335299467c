import { readFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { freePort } from '../../infra/local/services.js';
import { rawRequest, runScript } from '../support/raw-http.js';
import { routes } from '../../shared/routes.js';

const base = inject('serverUrl');
const key = inject('demoApiKey');
const dataDir = inject('dataDir');
const port = Number(new URL(base).port);

/** The runtime still serves an ordinary request. */
async function expectServing() {
  const res = await fetch(`${base}/organization`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ id: 'org_demo' });
}

function request(head: string, body = ''): string {
  return `${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;
}

function lambdaEndpoint(): string {
  const record = JSON.parse(readFileSync(join(dataDir, 'local-env.json'), 'utf8')) as { env: Record<string, string> };
  return record.env.LAMBDA_ENDPOINT!;
}

describe('the local server survives bad requests', () => {
  it('answers a malformed percent-encoding in the path with 400, before any key is checked', async () => {
    const res = await rawRequest(port, request('GET /products/%E0%A4%A HTTP/1.1'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      error: 'Bad Request',
      message: expect.stringContaining('percent-encoding'),
    });
    await expectServing();
  });

  it('answers an absolute-form target whose host is not a URL with 400', async () => {
    const res = await rawRequest(port, request('GET http://[::1/organization HTTP/1.1'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'Bad Request', message: expect.stringContaining('request target') });
    await expectServing();
  });

  it('serves a well-formed absolute-form target like its path', async () => {
    const res = await rawRequest(
      port,
      `GET ${base}/organization HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: 'org_demo' });
  });

  it('drops a client that closes before sending the body it announced, and keeps serving', async () => {
    const res = await rawRequest(
      port,
      `POST /products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"trunc`,
      { closeAfterWrite: true },
    );
    expect(res.status).toBe(0);
    await expectServing();
  });

  it('answers a 17 KB request line with 431 and a JSON body', async () => {
    const res = await rawRequest(
      port,
      `GET /products?name=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({
      error: 'Request Header Fields Too Large',
      message: expect.stringContaining('16 KB'),
    });
    await expectServing();
  });

  it('answers a request Node cannot parse with 400 and a JSON body', async () => {
    const res = await rawRequest(port, 'NOT A REQUEST\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      error: 'Bad Request',
      message: expect.stringContaining('malformed HTTP request'),
    });
    await expectServing();
  });

  it('lets a client sending 11 MB with Content-Length read the 413 JSON answer', async () => {
    const body = Buffer.alloc(11 * 1024 * 1024, 0x61);
    const head = `POST /products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const res = await rawRequest(port, Buffer.concat([Buffer.from(head), body]));
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({ error: 'Payload Too Large', message: expect.stringContaining('10 MB') });
    await expectServing();
  });

  it('lets a client sending 11 MB in chunks (no Content-Length) read the 413 JSON answer', async () => {
    const body = Buffer.alloc(11 * 1024 * 1024, 0x61);
    const head = `POST /products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const res = await rawRequest(
      port,
      Buffer.concat([Buffer.from(`${head}${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: 'Payload Too Large', message: expect.stringContaining('10 MB') });
    await expectServing();
  });
});

describe('path parameters and bodies clients send', () => {
  const auth = { authorization: `Bearer ${key}` };

  it('answers a path parameter longer than any id with 400 or 404 on every route, never a 5xx', async () => {
    const withParams = routes.filter((r) => r.path.includes('{'));
    expect(withParams.length).toBeGreaterThan(30);
    for (const route of withParams) {
      // 10,000 characters in all (two parameters share them: the request line stays under Node's 16 KB).
      const long = 'a'.repeat(10_000 / (route.path.match(/\{/g) ?? []).length);
      const path = route.path.replace(/\{[^}]+\}/g, long);
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}';
      const res = await fetch(`${base}${path}`, {
        method: route.method,
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      // A route the demo key's role may not call answers 403 before it reads its parameters.
      const expected = route.access === 'member' ? [400, 404] : [400, 403, 404];
      expect(expected, `${route.method} ${route.path} answered ${res.status}`).toContain(res.status);
      expect(await res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    await expectServing();
  });

  it('takes an empty body and {} on the routes without a body (cancel of an unknown run is a 404, not a 400)', async () => {
    for (const path of ['/runs/run_missing/cancel', '/tests/tst_missing/cancel']) {
      for (const body of [undefined, '{}']) {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body,
        });
        expect(res.status, `${path} with ${body ?? 'no body'}`).toBe(404);
      }
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"x":1}',
      });
      expect(res.status).toBe(400);
    }
  });
});

describe('the local Lambda Invoke API', () => {
  it('refuses an invoke without the runtime secret with 403, and with a wrong one', async () => {
    for (const path of [
      '/2015-03-31/functions/local-scanner/invocations',
      '/_lambda/guess/2015-03-31/functions/local-scanner/invocations',
    ]) {
      const res = await rawRequest(port, request(`POST ${path} HTTP/1.1`, '{}'));
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toEqual({ error: 'Forbidden', message: expect.stringContaining('secret') });
    }
    await expectServing();
  });

  it('answers 404 for a function that is not a local job, and runs a job with the secret', async () => {
    const endpoint = lambdaEndpoint();
    const unknown = await fetch(`${endpoint}/2015-03-31/functions/local-nothing/invocations`, {
      method: 'POST',
      body: '{}',
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Not Found', message: 'no local function named local-nothing' });
    const probe = await fetch(`${endpoint}/2015-03-31/functions/local-scanner/invocations`, {
      method: 'POST',
      body: JSON.stringify({ probe: 'build-info' }),
    });
    expect(probe.status).toBe(200);
    expect(await probe.json()).toMatchObject({ version: expect.any(String), commit: expect.any(String) });
  });
});

describe('a second npm start', () => {
  const emptyDirs: string[] = [];
  afterAll(() => {
    for (const d of emptyDirs) rmSync(d, { recursive: true, force: true });
  });

  function start(env: Record<string, string>) {
    return runScript('infra/local/start.ts', ['--in-memory'], {
      DYNAMODB_LOCAL_PORT: '0',
      S3_LOCAL_PORT: '0',
      TABLE_NAME: undefined,
      ...env,
    });
  }

  it('on the same port and data directory refuses in one line and leaves local-env.json alone', async () => {
    const file = join(dataDir, 'local-env.json');
    const before = { text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs };
    const run = await start({ PORT: String(port), DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(
      new RegExp(`^a local runtime is already running on ${base} \\(pid \\d+\\); stop it first`),
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe(before.text);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
    await expectServing();
  });

  it('on another port with the same data directory refuses too', async () => {
    const run = await start({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(new RegExp(`^a local runtime is already running on ${base} .*set DATA_DIR`));
  });

  it('on the same port with another data directory refuses without writing anything', async () => {
    const other = mkdtempSync(join(tmpdir(), 'evp-second-'));
    emptyDirs.push(other);
    const run = await start({ PORT: String(port), DATA_DIR: other });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `port ${port} is already in use (another local runtime?); stop it first or set PORT`,
    );
    expect(readdirSync(other)).toEqual([]);
    await expectServing();
  });
});
