import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The processes of a session (the one `npm start` leads: npm, its shell, tsx, the runtime, java, …). */
function sessionProcesses(sid: number): string[] {
  const out = spawnSync('ps', ['-s', String(sid), '-o', 'pid=,args='], { encoding: 'utf8' });
  return out.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** This process's environment without what points at another runtime's services, plus `set`. */
function ownEnv(set: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...set };
  for (const name of ['TABLE_NAME', 'BUCKET_NAME', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT']) delete env[name];
  return env;
}

/** Starts `npm start` in a session of its own and resolves once it serves (its session id is npm's pid). */
async function startNpm(): Promise<{ pid: number; output: () => string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evp-stop-'));
  dirs.push(dataDir);
  const child = spawn('npm', ['start', '--', '--in-memory'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: ownEnv({
      PORT: '0',
      DYNAMODB_LOCAL_PORT: '0',
      S3_LOCAL_PORT: '0',
      DATA_DIR: dataDir,
      SCAN_INTERVAL_SECONDS: '0',
    }),
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('Demo API key:')) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { pid: child.pid!, output: () => output };
}

/** Waits up to `ms` for the session to hold no process; answers what is left. */
async function leftAfter(sid: number, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = sessionProcesses(sid);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('stopping npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process stops the whole tree: runtime, DynamoDB Local, everything`, async () => {
      const npm = await startNpm();
      const before = sessionProcesses(npm.pid);
      expect(before.some((p) => p.includes('java'))).toBe(true);
      expect(before.some((p) => p.includes('infra/local/start.ts'))).toBe(true);
      process.kill(npm.pid, signal);
      // The stop is bounded (jobs in flight get 4 s, DynamoDB Local 3 s after its SIGTERM), and
      // slower on a loaded machine: the question is whether anything is left, not how fast.
      const left = await leftAfter(npm.pid, 30_000);
      if (left.length) spawnSync('kill', ['-9', ...left.map((l) => l.split(' ')[0]!)]);
      expect(left, npm.output()).toEqual([]);
    }, 120_000);
  }
});
