import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueueDatabase, QUEUES_FILE } from '../../infra/local/sqlite-queues.js';
import { sendJson, type SeenRequest, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { jsonClient } from '../support/http-client.js';
import { generatorAnswer, type LlmStub, startLlmStub } from '../support/llm-server.js';
import { runScript } from '../support/raw-http.js';
import { TEST_JAVA_OPTIONS } from '../support/test-services.js';

/**
 * Nothing is lost when the local runtime is killed. The test runs `npm start`'s entry point as a
 * child process in a session of its own, on its own data directory, kills the whole process group
 * (the runtime and its DynamoDB Local) with SIGKILL at seeded moments of a 400-case run, of a
 * generation job and of a webhook delivery, starts it again on the same directory each time, and
 * checks that each finished exactly once: what was in flight was delivered again, and the jobs'
 * own idempotence absorbed what had been done twice.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
/** `CRASH_SEED=<n>` replays the kill moments of a failed run (printed with every failure). */
const SEED = Number(process.env.CRASH_SEED ?? 23);
const CASES = 400;
/** The runtime's run concurrency (RUN_LOCAL_CONCURRENCY): a kill cuts at most this many agent calls short. */
const CONCURRENCY = 10;
const AGENT_MS = 300;

/** The seeded moments: about 60, 170 and 290 sessions completed, each moved by up to 20. */
function killMoments(seed: number): number[] {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return [60, 170, 290].map((n) => n + Math.floor(next() * 20));
}

interface Runtime {
  pid: number;
  url: string;
  key: string;
  output: () => string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'evp-crash-'));
const logs: string[] = [];
let llm: LlmStub;
let runtime: Runtime | undefined;

const api = (method: string, path: string, body?: unknown) =>
  jsonClient(runtime!.url, runtime!.key)(method, path, body);

/** This process's environment without what points at other services, plus the runtime's own. */
function runtimeEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    DATA_DIR: dataDir,
    DYNAMODB_LOCAL_PORT: '0',
    S3_LOCAL_PORT: '0',
    // No scheduled job (the webhook sweep among them): what is delivered again comes from the queues.
    SCAN_INTERVAL_SECONDS: '0',
    RUN_LOCAL_CONCURRENCY: String(CONCURRENCY),
    LOG_LEVEL: 'error',
    LLM_BASE_URL: llm.url,
    AGENT_ALLOW_PRIVATE_NETWORKS: 'true',
    JAVA_TOOL_OPTIONS: TEST_JAVA_OPTIONS,
  };
  for (const name of ['TABLE_NAME', 'BUCKET_NAME', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'DEMO_API_KEY'])
    delete env[name];
  return env;
}

/** What the runtime says as it starts when the last stop cut jobs short (sqlite-queues.ts recovers them). */
const DELIVERED_AGAIN = /Job queues: .*, (\d+) cut short by the last stop and delivered again/;

/** Starts the runtime (`npm start`'s entry point) in a session of its own; resolves once it serves. */
async function start(): Promise<Runtime> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: runtimeEnv(),
  });
  const at = logs.push('') - 1;
  const keep = (d: Buffer) => (logs[at] += d.toString());
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(logs[at]!)?.[1];
    const key = /Demo API key: (\S+)/.exec(logs[at]!)?.[1];
    if (url && key) {
      runtime = { pid: child.pid!, url, key, output: () => logs[at]! };
      return runtime;
    }
    if (child.exitCode !== null) throw new Error(`the runtime exited (${child.exitCode}):\n${logs[at]}`);
    if (Date.now() > deadline) throw new Error(`the runtime did not start:\n${logs[at]}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The processes of a session (the runtime leads it: itself, its DynamoDB Local). */
function sessionProcesses(sid: number): number[] {
  const out = spawnSync('ps', ['-s', String(sid), '-o', 'pid='], { encoding: 'utf8' });
  return out.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((pid) => pid > 0);
}

/** Processes started for this test's data directory (a DynamoDB Local whose group was left). */
function ownProcesses(): number[] {
  const out = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.stdout
    .split('\n')
    .filter((l) => l.includes(dataDir))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid > 0 && pid !== process.pid);
}

/** SIGKILL to the runtime's whole process group, as a power cut would; resolves once none of it is left. */
async function kill(): Promise<void> {
  const { pid } = runtime!;
  runtime = undefined;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  const deadline = Date.now() + 15_000;
  while (sessionProcesses(pid).length > 0) {
    if (Date.now() > deadline) throw new Error(`processes of the killed runtime are left: ${sessionProcesses(pid)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function poll<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} (seed ${SEED})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function upload(csv: string): Promise<string> {
  const presigned = (
    await api(
      'GET',
      `/storage/generate-put-presigned-url?fileName=cases.csv&contentType=${encodeURIComponent('text/csv')}`,
    )
  ).body;
  const put = await fetch(presigned.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
  expect(put.status).toBe(200);
  return presigned.uri;
}

/** A product whose version calls the agent at `url`. */
async function agentVersion(name: string, url: string) {
  const product = (await api('POST', '/products', { name, description: 'answers what it is asked' })).body;
  const connection = (
    await api('POST', '/endpointConnections', {
      productId: product.id,
      name: 'echo',
      url: `${url}/chat`,
      inputTemplate: '{"message": "{{ input.user_message }}"}',
      outputMapping: { output: '$.reply' },
      type: 'CONVERSATION',
    })
  ).body;
  const version = (
    await api('POST', '/versions', {
      productId: product.id,
      name: 'v1',
      conversationEndpointConnectionId: connection.id,
    })
  ).body;
  expect(version.id, JSON.stringify(version)).toMatch(/^ver_/);
  return { product, version };
}

/** Every record of a list that takes a comma-separated filter, 50 ids at a time. */
async function listBy(path: string, param: string, ids: string[]): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const res = await api('GET', `${path}?${param}=${ids.slice(i, i + 50).join(',')}&limit=1000`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body);
  }
  return out;
}

const echo = (req: SeenRequest, res: ServerResponse) => sendJson(res, 200, { reply: req.json?.message ?? '' });

beforeAll(async () => {
  llm = await startLlmStub();
  await start();
}, 240_000);

afterAll(async () => {
  if (runtime) await kill().catch(() => undefined);
  // A DynamoDB Local that outlived its group (it never should) goes too: by pid, only ours.
  const left = ownProcesses();
  if (left.length) spawnSync('kill', ['-9', ...left.map(String)]);
  await llm?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** What the runtimes printed, when a test fails. */
const printLogs = () => console.log(`seed ${SEED}\n${logs.map((l, i) => `--- runtime ${i + 1}\n${l}`).join('\n')}`);

describe('the local runtime killed with SIGKILL loses nothing', () => {
  it(`a ${CASES}-case run killed three times completes with one session, one turn and one evaluation per case`, async () => {
    const agent: TestAgentServer = await startAgent((req, res) => {
      setTimeout(() => echo(req, res), AGENT_MS);
    });
    try {
      const { product, version } = await agentVersion('crash run', agent.url);
      const inputs = Array.from({ length: CASES }, (_, i) => `question ${i + 1}`);
      const uri = await upload(`input,expected_output\n${inputs.map((q) => `${q},${q}`).join('\n')}\n`);
      const test = (await api('POST', '/tests', { productId: product.id, name: 'cases', type: 'QUALITY', uri })).body;
      expect(test).toMatchObject({ status: 'SUCCESS', testCaseCount: CASES });
      const created = await api('POST', '/runs', {
        versionId: version.id,
        testId: test.id,
        metricIds: ['met_non_empty_output'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const runId = created.body.id as string;

      const moments = killMoments(SEED);
      const killedAt: number[] = [];
      for (const moment of moments) {
        const progress = await poll(
          `run ${runId} toward ${moment} sessions`,
          async () => (await api('GET', `/runs/${runId}`)).body.progress,
          (p) => p.completed + p.failed >= moment,
        );
        await kill();
        killedAt.push(progress.completed + progress.failed);
        // The run steps in flight when it was killed are delivered again.
        expect((await start()).output()).toMatch(DELIVERED_AGAIN);
      }
      const run = await poll(
        `run ${runId}`,
        async () => (await api('GET', `/runs/${runId}`)).body,
        (r) => !['PENDING', 'RUNNING'].includes(r.status),
      );
      try {
        expect(run).toMatchObject({ status: 'COMPLETED', progress: { total: CASES, completed: CASES, failed: 0 } });
        const sessions = (await api('GET', `/sessions?runIds=${runId}&limit=1000`)).body as any[];
        expect(sessions).toHaveLength(CASES);
        expect(new Set(sessions.map((s) => s.testCaseId)).size).toBe(CASES);
        expect(sessions.every((s) => s.status === 'COMPLETED')).toBe(true);
        const ids = sessions.map((s) => s.id as string);
        const turns = await listBy('/inferenceResults', 'sessionIds', ids);
        expect(turns).toHaveLength(CASES);
        // Every case's output: the echo of its input, one turn per session.
        expect(new Set(turns.map((t) => t.sessionId)).size).toBe(CASES);
        expect(turns.map((t) => t.output).sort()).toEqual([...inputs].sort());
        expect(turns.every((t) => t.output === t.input)).toBe(true);
        const evaluations = await listBy('/evaluations', 'sessionIds', ids);
        expect(evaluations).toHaveLength(CASES);
        expect(new Set(evaluations.map((e) => `${e.sessionId} ${e.metricId}`)).size).toBe(CASES);
        expect(evaluations.every((e) => e.status === 'SUCCESS' && e.score === 1)).toBe(true);
        // Each kill cut at most the calls in flight short; each was made again, once.
        const calls = agent.requests.filter((r) => r.url === '/chat').length;
        console.log(`seed ${SEED}: killed at ${killedAt.join(', ')} sessions; the agent was called ${calls} times`);
        expect(calls).toBeGreaterThanOrEqual(CASES);
        expect(calls).toBeLessThanOrEqual(CASES + 3 * CONCURRENCY);
      } catch (error) {
        printLogs();
        throw error;
      }
    } finally {
      await agent.close();
    }
  }, 1_200_000);

  it('a generation job killed while the generator answers finishes with each case written once', async () => {
    // Each generator call takes 2 s: the kill comes while the third of six steps waits for its answer.
    const steps = 6;
    llm.setHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 2_000));
      return generatorAnswer(req);
    });
    llm.requests.length = 0;
    try {
      const product = (
        await api('POST', '/products', {
          name: 'crash generation',
          description: 'a support bot',
          securityBoundaries: ['never shares passwords'],
        })
      ).body;
      const created = await api('POST', '/tests', {
        productId: product.id,
        name: 'attacks',
        type: 'RED_TEAMING',
        variants: ['data_leakage'],
        maxTestCases: steps * 10,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await poll(
        'the third generator call',
        async () => llm.requests.length,
        (n) => n >= 3,
      );
      await kill();
      expect((await start()).output()).toMatch(DELIVERED_AGAIN);
      const test = await poll(
        `test ${created.body.id}`,
        async () => (await api('GET', `/tests/${created.body.id}`)).body,
        (t) => t.status !== 'PENDING',
      );
      try {
        expect(test).toMatchObject({ status: 'SUCCESS', testCaseCount: steps * 10, error: null });
        const cases = (await api('GET', `/testCases?testIds=${test.id}&limit=1000`)).body as any[];
        expect(cases).toHaveLength(steps * 10);
        expect(cases.map((c) => c.index).sort((a, b) => a - b)).toEqual(
          Array.from({ length: steps * 10 }, (_, i) => i + 1),
        );
        expect(new Set(cases.map((c) => c.input)).size).toBe(steps * 10);
        // The step cut short asked the generator again, once; every other step asked once.
        expect(llm.requests.length).toBeGreaterThanOrEqual(steps);
        expect(llm.requests.length).toBeLessThanOrEqual(steps + 1);
      } catch (error) {
        printLogs();
        throw error;
      }
    } finally {
      llm.setHandler((req) => generatorAnswer(req));
    }
  }, 600_000);

  it('a webhook delivery killed while the receiver reads it is delivered again: one delivery id, SUCCEEDED', async () => {
    // The receiver holds the first request of each delivery for 10 s (the kill comes meanwhile) and answers the next at once.
    const held = new Set<string>();
    const receiver = await startAgent((req, res) => {
      const id = String(req.headers['webhook-id']);
      if (held.has(id)) return res.writeHead(204).end();
      held.add(id);
      setTimeout(() => res.writeHead(204).end(), 10_000);
    });
    const agent = await startAgent(echo);
    try {
      const webhook = (await api('POST', '/webhooks', { url: `${receiver.url}/hooks`, events: ['run.completed'] }))
        .body;
      expect(webhook.id, JSON.stringify(webhook)).toMatch(/^wh/);
      const { product, version } = await agentVersion('crash webhook', agent.url);
      const uri = await upload('input,expected_output\nhello,hello\nthanks,thanks\n');
      const test = (await api('POST', '/tests', { productId: product.id, name: 'two', type: 'QUALITY', uri })).body;
      const run = (
        await api('POST', '/runs', { versionId: version.id, testId: test.id, metricIds: ['met_non_empty_output'] })
      ).body;
      // The run completed, its event was queued and the deliverer is sending it: kill now.
      await poll(
        'the first delivery',
        async () => receiver.requests.length,
        (n) => n >= 1,
        120_000,
      );
      await kill();
      expect((await start()).output()).toMatch(DELIVERED_AGAIN);
      const deliveries = await poll(
        `the deliveries of ${webhook.id}`,
        async () => (await api('GET', `/webhooks/${webhook.id}/deliveries`)).body as any[],
        (d) => d.length > 0 && d.every((x) => x.status !== 'PENDING'),
        120_000,
      );
      try {
        expect(deliveries).toHaveLength(1);
        expect(deliveries[0]).toMatchObject({ type: 'run.completed', status: 'SUCCEEDED', responseCode: 204 });
        const received = receiver.requests.map((r) => ({ id: r.headers['webhook-id'], body: r.json }));
        // Received twice (cut short, then again), always as the same delivery: a receiver keeps it once by its id.
        expect(received.length).toBeGreaterThanOrEqual(2);
        expect(new Set(received.map((r) => r.id))).toEqual(new Set([deliveries[0].id]));
        expect(received.every((r) => r.body.type === 'run.completed' && r.body.data.id === run.id)).toBe(true);
      } catch (error) {
        printLogs();
        throw error;
      }
    } finally {
      await receiver.close();
      await agent.close();
    }
  }, 600_000);

  it('a dead letter left while the runtime was down is redriven beside the running runtime and delivered', async () => {
    await kill();
    // A run job that failed three receives (a consumer that released it each time) is a dead letter.
    const queues = openQueueDatabase(join(dataDir, QUEUES_FILE));
    try {
      queues.send('run', [JSON.stringify({ kind: 'redriven', note: 'not a job the runner knows: dropped' })], 0);
      const store = queues.store('run');
      for (let i = 0; i < 3; i++) {
        const [message] = store.receive(1);
        expect(message).toMatchObject({ receiveCount: i + 1 });
        store.release(message!, 0);
      }
      expect(queues.counts().run).toMatchObject({ waiting: 0, inFlight: 0, dead: 1 });
    } finally {
      queues.close();
    }
    const started = await start();
    expect(started.output()).toMatch(/dead letters: run 1, see npm run admin -- redrive <queue>/);
    const admin = (args: string[]) =>
      runScript('infra/local/admin.ts', args, { DATA_DIR: dataDir, TABLE_NAME: undefined, DEBUG: undefined });
    const moved = await admin(['redrive', 'run']);
    expect(moved, JSON.stringify(moved)).toMatchObject({ code: 0, stderr: '' });
    expect(moved.stdout.trim()).toBe(
      `moved 1 dead letter back onto the run queue; the runtime on ${started.url} delivers them now`,
    );
    // The running runtime's consumer finds it (it polls when idle) and takes it off the queue.
    const check = openQueueDatabase(join(dataDir, QUEUES_FILE));
    try {
      await poll(
        'the redriven message to be delivered',
        async () => check.counts().run,
        (c) => c.waiting === 0 && c.inFlight === 0 && c.dead === 0,
        30_000,
      );
    } finally {
      check.close();
    }
    const again = await admin(['redrive', 'run']);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toMatch(/^nothing to redrive: the run queue has no dead letters/);
  }, 300_000);
});
