import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../infra/local/services.js';
import { startLlmStub } from './llm-server.js';

/** e2e: starts `npm start` (in memory, on a free port) as a child process, exactly as a developer would. */
export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, '..', '..');
  const port = await freePort();
  // Its own data directory: the developer's .data/ (and a runtime they may have running) stay untouched.
  const dataDir = mkdtempSync(join(tmpdir(), 'evp-e2e-'));
  // The server's LLM (simulated user, judge): a stub on loopback with its default answers.
  const llm = await startLlmStub();
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--in-memory'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DYNAMODB_LOCAL_PORT: '0',
      S3_LOCAL_PORT: '0',
      SCAN_INTERVAL_SECONDS: '1',
      DEMO_API_KEY: '',
      LOG_LEVEL: 'error',
      LLM_BASE_URL: llm.url,
      AGENT_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const key = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`local server did not start:\n${output}`)), 150_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /Demo API key: (\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        res(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => rej(new Error(`local server exited with ${code}:\n${output}`)));
  });
  project.provide('serverUrl', `http://127.0.0.1:${port}`);
  project.provide('demoApiKey', key);
  project.provide('dataDir', dataDir);
  return async () => {
    await new Promise<void>((res) => {
      if (child.exitCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
    rmSync(dataDir, { recursive: true, force: true });
    await llm.close();
  };
}
