import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../infra/local/services.js';
import { startLlmStub } from './llm-server.js';
import { startVoiceAgent } from '../../examples/voice/voice-agent.mjs';

/** The number the e2e server's phone line connects to the example voice agent. */
export const E2E_VOICE_NUMBER = '+15550100001';
/**
 * Numbers answered by the example agent saying the same long answer to anything (so a barge-in finds
 * it talking): one that stops when spoken over, one that talks on (`BARGE_IN=off`).
 */
export const E2E_BARGE_IN_NUMBERS = { stops: '+15550100005', talksOn: '+15550100006' };
const LONG_ANSWER = 'thank you for calling, let me look that up for you, one moment please';
import { TEST_JAVA_OPTIONS } from './test-services.js';

/** e2e: starts `npm start` (in memory, on a free port) as a child process, exactly as a developer would. */
export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, '..', '..');
  const port = await freePort();
  // Its own data directory: the developer's .data/ (and a runtime they may have running) stay untouched.
  const dataDir = mkdtempSync(join(tmpdir(), 'evp-e2e-'));
  // Everything the server writes (its error lines included) goes to a file, not the terminal:
  // test/support/e2e-setup.ts prints the part a failed test wrote.
  const logDir = mkdtempSync(join(tmpdir(), 'evp-e2e-log-'));
  const serverLog = join(logDir, 'server.log');
  writeFileSync(serverLog, '');
  // The server's LLM (simulated user, judge): a stub on loopback with its default answers.
  const llm = await startLlmStub();
  // Its phone line's agent: the example Media Streams agent (the stub speaks and hears its tones).
  const voiceAgent = await startVoiceAgent({ delayMs: 500, onAnswer: () => undefined });
  const stops = await startVoiceAgent({ delayMs: 500, say: LONG_ANSWER, onAnswer: () => undefined });
  const talksOn = await startVoiceAgent({ delayMs: 500, say: LONG_ANSWER, bargeIn: false, onAnswer: () => undefined });
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
      LOCAL_PHONE_AGENTS: JSON.stringify({
        [E2E_VOICE_NUMBER]: voiceAgent.url,
        [E2E_BARGE_IN_NUMBERS.stops]: stops.url,
        [E2E_BARGE_IN_NUMBERS.talksOn]: talksOn.url,
      }),
      // For the server's DynamoDB Local.
      JAVA_TOOL_OPTIONS: TEST_JAVA_OPTIONS,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => appendFileSync(serverLog, d);
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
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
  project.provide('serverLog', serverLog);
  project.provide('voiceNumber', E2E_VOICE_NUMBER);
  project.provide('bargeInNumbers', E2E_BARGE_IN_NUMBERS);
  // Vitest runs the e2e files (one at a time) after every other project's: until then nothing asks
  // the server anything, but its scheduled jobs (every second here) would take a fifth of a core
  // from those projects. It sleeps (SIGSTOP) till the first e2e file wakes it (test/support/e2e-setup.ts).
  const pid = child.pid!;
  project.provide('serverPid', pid);
  signal(pid, 'SIGSTOP');
  return async () => {
    await new Promise<void>((res) => {
      if (child.exitCode !== null) return res();
      child.once('exit', () => res());
      signal(pid, 'SIGCONT');
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
    await llm.close();
    await voiceAgent.close();
    await stops.close();
    await talksOn.close();
  };
}

/** Job control where the platform has it; elsewhere the server simply stays awake. */
function signal(pid: number, name: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(pid, name);
  } catch {
    // e.g. Windows
  }
}
