import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * Where a local runtime records itself (`<data dir>/local-env.json`) so that the CLIs find it and
 * a second `npm start` refuses to run beside it. This module reads no configuration at load, so
 * `start.ts` can check for a running runtime before anything else happens, and loads nothing heavy
 * (the emulators' module only when a port is checked), so evalctl can read the record at once.
 */
export const LOCAL_ENV_FILE = 'local-env.json';

/** The data directory: `DATA_DIR` (relative to the current directory) or `.data/` at the project root. */
export function localDataDir(): string {
  const configured = process.env.DATA_DIR;
  return configured ? resolve(configured) : resolve(import.meta.dirname, '..', '..', '.data');
}

export interface RuntimeRecord {
  pid: number;
  url: string;
  /** False while the runtime starts its emulators; `env` is there once it is ready. */
  ready: boolean;
  env?: Record<string, string>;
  /** Where its job queues are: `sqlite` (`<data dir>/queues.sqlite`) or `memory` (`--in-memory`). */
  queues?: 'sqlite' | 'memory';
}

export function runtimeRecordPath(dataDir: string): string {
  return join(dataDir, LOCAL_ENV_FILE);
}

/** The record in `dataDir`, undefined when there is none; throws when the file is not a record. */
export function readRuntimeRecord(dataDir: string): RuntimeRecord | undefined {
  let text: string;
  try {
    text = readFileSync(runtimeRecordPath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<RuntimeRecord>;
  if (
    !Number.isInteger(parsed.pid) ||
    parsed.pid! <= 0 ||
    typeof parsed.url !== 'string' ||
    !URL.canParse(parsed.url) ||
    typeof parsed.ready !== 'boolean'
  ) {
    throw new Error(`${runtimeRecordPath(dataDir)} is not a local runtime record`);
  }
  return parsed as RuntimeRecord;
}

export function writeRuntimeRecord(dataDir: string, record: RuntimeRecord): void {
  // It holds the invoke secret (in LAMBDA_ENDPOINT): readable by its owner only.
  writeFileSync(runtimeRecordPath(dataDir), JSON.stringify(record, null, 2), { mode: 0o600 });
}

/** Deletes the record only when it is this process's own (a second runtime never removes the first's). */
export function removeOwnRuntimeRecord(dataDir: string): void {
  let record: RuntimeRecord | undefined;
  try {
    record = readRuntimeRecord(dataDir);
  } catch {
    return;
  }
  if (record?.pid === process.pid) rmSync(runtimeRecordPath(dataDir), { force: true });
}

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function answersTcp(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((res) => {
    const socket = new Socket();
    const done = (open: boolean) => {
      socket.destroy();
      res(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(Number(port), hostname);
  });
}

/** The runtime recorded in `dataDir` when its process is alive and its port answers; else undefined. */
export async function liveRuntime(dataDir: string): Promise<RuntimeRecord | undefined> {
  let record: RuntimeRecord | undefined;
  try {
    record = readRuntimeRecord(dataDir);
  } catch {
    return undefined; // an unreadable record is stale: the next runtime overwrites it
  }
  if (!record || record.pid === process.pid || !processIsAlive(record.pid)) return undefined;
  return (await answersTcp(record.url)) ? record : undefined;
}

/** A runtime already holds the port or the data directory: nothing was started or written. */
export class RuntimeAlreadyRunningError extends Error {}

/**
 * Refuses to start beside a live runtime: one recorded in `dataDir` (whatever its port), or
 * anything listening on `port`. Reads only; throws `RuntimeAlreadyRunningError` with one line.
 */
export async function assertNoRunningRuntime(port: number, dataDir: string): Promise<void> {
  const running = await liveRuntime(dataDir);
  if (running) {
    const samePort = new URL(running.url).port === String(port);
    throw new RuntimeAlreadyRunningError(
      `a local runtime is already running on ${running.url} (pid ${running.pid}); stop it first` +
        (samePort ? ' or set PORT and DATA_DIR to run another' : ` or set DATA_DIR (it uses ${dataDir})`),
    );
  }
  const { portIsFree } = await import('./services.js');
  if (port !== 0 && !(await portIsFree(port))) {
    throw new RuntimeAlreadyRunningError(
      `port ${port} is already in use (another local runtime?); stop it first or set PORT`,
    );
  }
}
