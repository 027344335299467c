import { existsSync, mkdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ENV, optionalEnv } from '../../shared/config/env.js';
import { freePort, startDynamoDbLocal, startS3, type RunningService } from './services.js';
import { jobs } from '../../shared/routes.js';
import { createLocalServer, INVOKE_PREFIX } from './server.js';
import { ensureConsoleBuilt } from '../console-build.js';
import { assertNoRunningRuntime, removeOwnRuntimeRecord, writeRuntimeRecord } from './state.js';
// Installs the in-memory job queues before any handler can enqueue (`npm start` then puts the durable ones in their place).
import { localGenerationQueue, localQueue, localRunQueue, localVoiceQueue, memoryTransport } from './queues.js';
import { type QueueDatabase, openQueueDatabase, QUEUE_NAMES, QUEUES_FILE } from './sqlite-queues.js';
import { memoryStore, type QueueStore } from './queue-store.js';
import { deadLetters } from './queue.js';
import { generationDeadLetters, runDeadLetters, startRunQueueConsumer, voiceDeadLetters } from './run-queue.js';
import { webhookDelayQueue } from './webhook-queue.js';
import { type QueueName, useLocalTransport } from '../../shared/queue/sqs.js';
import { countedTransport } from './usage.js';
import { voidLeasesTakenBefore } from '../../shared/db/leases.js';

/** How long a stop waits for jobs in flight before it stops the emulators under them. */
const STOP_GRACE_MS = 4000;

export interface LocalRuntimeOptions {
  port: number;
  /** Ports of DynamoDB Local and s3rver when this runtime starts them (0 = any free port). */
  dynamodbPort?: number;
  s3Port?: number;
  inMemory: boolean;
  dataDir: string;
  demoApiKey?: string;
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  /** Seconds between local scanner/aggregator runs; 0 disables them. */
  scanIntervalSeconds: number;
  quiet?: boolean;
}

export interface LocalRuntime {
  url: string;
  port: number;
  demoApiKey: string;
  demoOrganizationId: string;
  env: Record<string, string>;
  stop: () => Promise<void>;
}

export const LOCAL_TABLE = 'eval-platform-local';
export const LOCAL_BUCKET = 'eval-platform-local';

/** Local webhook sweeps run at most every 30 s: 16 index reads a second would slow DynamoDB Local for the rest. */
const LOCAL_SWEEP_MIN_SECONDS = 30;

/** How often a scheduled job runs in process: every `SCAN_INTERVAL_SECONDS`, the webhook sweep no more than every 30 s. */
export function localPeriodSeconds(job: (typeof jobs)[number], scanIntervalSeconds: number): number {
  return job.name === 'sweeper' ? Math.max(scanIntervalSeconds, LOCAL_SWEEP_MIN_SECONDS) : scanIntervalSeconds;
}

/** Each queue's store: the durable one of `queues`, or the in-memory queue (`--in-memory`). */
function localQueueStores(queues: QueueDatabase | undefined): Record<QueueName, QueueStore> {
  if (queues) return Object.fromEntries(QUEUE_NAMES.map((q) => [q, queues.store(q)])) as Record<QueueName, QueueStore>;
  const wallClock = () => Date.now();
  return {
    evaluation: memoryStore({ queue: localQueue, deadLetters, now: wallClock, arnName: 'evaluation-jobs' }),
    run: memoryStore({ queue: localRunQueue, deadLetters: runDeadLetters, now: wallClock }),
    webhook: memoryStore(webhookDelayQueue),
    generation: memoryStore({
      queue: localGenerationQueue,
      deadLetters: generationDeadLetters,
      now: wallClock,
      arnName: 'generation-jobs',
    }),
    voice: memoryStore({
      queue: localVoiceQueue,
      deadLetters: voiceDeadLetters,
      now: wallClock,
      arnName: 'voice-jobs',
    }),
  };
}

/** One line on where the queues are and what a stop left in them. */
function queueSummary(queues: QueueDatabase, recovered: number): string {
  const counts = queues.counts();
  const waiting = QUEUE_NAMES.reduce((n, q) => n + counts[q].waiting, 0);
  const dead = QUEUE_NAMES.filter((q) => counts[q].dead > 0).map((q) => `${q} ${counts[q].dead}`);
  return (
    `Job queues: ${queues.path} (${waiting} waiting` +
    (recovered ? `, ${recovered} cut short by the last stop and delivered again` : '') +
    (dead.length ? `; dead letters: ${dead.join(', ')}, see npm run admin -- redrive <queue>` : '') +
    ')'
  );
}

function gitCommit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Starts everything `npm start` needs: DynamoDB Local and s3rver (unless endpoints are given),
 * the environment the functions read, the table, the demo organization, the HTTP server and the
 * in-process schedules.
 *
 * It first makes sure no other runtime holds the port or the data directory, touching nothing
 * (`RuntimeAlreadyRunningError`). Then it takes the port (answering 503 while it starts) and
 * records itself in `<dataDir>/local-env.json`, before any emulator starts.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const startedAt = Date.now();
  await assertNoRunningRuntime(options.port, options.dataDir);
  // The console served at `/`: built now when console/dist is missing or stale.
  // A failed build is reported and the API still starts (the console's paths then answer 404).
  try {
    if (ensureConsoleBuilt() && !options.quiet) console.log('Built the console (console/dist)');
  } catch (error) {
    console.error((error as Error).message);
  }
  const children: RunningService[] = [];
  const cleanup: (() => void)[] = [];
  const stopAll = async () => {
    for (const c of children.reverse()) await c.stop().catch(() => undefined);
    for (const f of cleanup) f();
  };
  // Only holders of this secret may invoke the job functions (see server.ts).
  const invokeSecret = randomBytes(24).toString('base64url');
  let ready = false;
  const server = createLocalServer({ quiet: options.quiet, invokeSecret, isReady: () => ready });
  const closeServer = () =>
    new Promise<void>((res) => {
      if (!server.listening) return res();
      server.close(() => res());
      server.closeAllConnections();
    });
  try {
    await new Promise<void>((res, rej) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        rej(
          error.code === 'EADDRINUSE'
            ? new Error(`port ${options.port} is already in use; stop what holds it or set PORT`)
            : error,
        ),
      );
      server.listen(options.port, '127.0.0.1', () => res());
    });
  } catch (error) {
    await closeServer();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  try {
    mkdirSync(options.dataDir, { recursive: true });
    // From here a second start with this data directory refuses, whatever its port.
    writeRuntimeRecord(options.dataDir, { pid: process.pid, url, ready: false });
    cleanup.push(() => removeOwnRuntimeRecord(options.dataDir));
    // The job queues: in the data directory (what a stop cut short is delivered again), or in memory.
    let queues: QueueDatabase | undefined;
    if (!options.inMemory) {
      const opened = openQueueDatabase(join(options.dataDir, QUEUES_FILE));
      queues = opened;
      cleanup.push(() => {
        useLocalTransport(memoryTransport);
        opened.close();
      });
      const recovered = opened.recoverInFlight();
      useLocalTransport(countedTransport((name, bodies, delayMs) => opened.send(name, bodies, delayMs)));
      if (!options.quiet) console.log(queueSummary(opened, recovered));
    }
    let dynamoEndpoint = options.dynamodbEndpoint;
    if (!dynamoEndpoint) {
      const dynamo = await startDynamoDbLocal({
        port: options.dynamodbPort || (await freePort()),
        dbPath: options.inMemory ? undefined : join(options.dataDir, 'dynamodb'),
      });
      children.push(dynamo);
      dynamoEndpoint = dynamo.endpoint;
      // Its table is this runtime's alone: the leases in it were taken by runtimes that stopped,
      // and the jobs the durable queues deliver again may take them at once (shared/db/leases.ts).
      if (queues) voidLeasesTakenBefore(startedAt);
    }
    let s3Endpoint = options.s3Endpoint;
    if (!s3Endpoint) {
      const dir = options.inMemory ? mkdtempSync(join(tmpdir(), 'evp-s3-')) : join(options.dataDir, 's3');
      if (options.inMemory) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const s3 = await startS3({ port: options.s3Port || (await freePort()), directory: dir, bucket: LOCAL_BUCKET });
      children.push(s3);
      s3Endpoint = s3.endpoint;
    }

    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const env: Record<string, string> = {
      [ENV.tableName]: process.env[ENV.tableName] ?? LOCAL_TABLE,
      [ENV.bucketName]: process.env[ENV.bucketName] ?? LOCAL_BUCKET,
      [ENV.dynamodbEndpoint]: dynamoEndpoint,
      [ENV.s3Endpoint]: s3Endpoint,
      // The SDK keeps the endpoint's path: every invoke carries the secret (server.ts checks it).
      [ENV.lambdaEndpoint]: `${url}${INVOKE_PREFIX}/${invokeSecret}`,
      [ENV.evaluatorFunction]: 'local-evaluator',
      [ENV.scannerFunction]: 'local-scanner',
      [ENV.aggregatorFunction]: 'local-aggregator',
      [ENV.runnerFunction]: 'local-runner',
      [ENV.generatorFunction]: 'local-generator',
      [ENV.queueUrl]: 'local://evaluation-queue',
      [ENV.runQueueUrl]: 'local://run-queue',
      [ENV.webhookQueueUrl]: 'local://webhook-queue',
      [ENV.generationQueueUrl]: 'local://generation-queue',
      [ENV.voiceQueueUrl]: 'local://voice-queue',
      // A developer's agent runs on localhost: runs may call loopback and private addresses here (never in CDK).
      [ENV.agentAllowPrivateNetworks]: process.env[ENV.agentAllowPrivateNetworks] ?? 'true',
      AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
      // s3rver accepts only its own fixed credentials; DynamoDB Local accepts any.
      AWS_ACCESS_KEY_ID: options.s3Endpoint ? (process.env.AWS_ACCESS_KEY_ID ?? 'S3RVER') : 'S3RVER',
      AWS_SECRET_ACCESS_KEY: options.s3Endpoint ? (process.env.AWS_SECRET_ACCESS_KEY ?? 'S3RVER') : 'S3RVER',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      BUILD_VERSION: pkg.version,
      BUILD_COMMIT: process.env.BUILD_COMMIT ?? gitCommit(),
      BUILD_DATE: new Date().toISOString(),
    };
    Object.assign(process.env, env);

    // Function modules read the environment at load, so they are imported only now.
    const bootstrap = await import('./bootstrap.js');
    await bootstrap.ensureTable();
    const { seedPlatform } = await import('../../shared/domain/metrics/predefined/seed.js');
    await seedPlatform();
    const keyFile = join(options.dataDir, 'demo-api-key');
    const remembered = !options.inMemory && existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined;
    const demoApiKey = await bootstrap.seedDemoOrganization({
      demoKey: options.demoApiKey,
      rememberedKey: remembered || undefined,
    });
    writeFileSync(keyFile, `${demoApiKey}\n`, { mode: 0o600 });
    const { invokeJob, loadHandler } = await import('./gateway.js');
    const concurrency = Number(process.env[ENV.runLocalConcurrency] ?? 10);
    // Loaded now rather than on the first invoke, which the build-info probe gives only 2 s.
    await Promise.all(jobs.map((j) => loadHandler(j.handler)));
    // The phone line: voice runs dial the agents of LOCAL_PHONE_AGENTS through the real call-control handler.
    const { phoneLineFromEnv } = await import('./phone-line.js');
    const { useLocalTelephony } = await import('../../shared/telephony/telephony.js');
    const callControl = await import('../../functions/jobs/call-control.js');
    const phoneLine = phoneLineFromEnv({ handler: (event) => callControl.handler(event) });
    // Without an LLM endpoint a phone run could not speak or listen: none is accepted (400).
    useLocalTelephony(phoneLine, {
      speaks: (optionalEnv(ENV.llmBaseUrl) ?? optionalEnv(ENV.judgeBaseUrl)) !== undefined,
    });
    cleanup.push(() => useLocalTelephony(undefined));
    // The five job queues, each drained by its real handler as Lambda's SQS event source would; started
    // last, so that a job a stop cut short, delivered again at once, finds everything it needs (the phone line).
    const stores = localQueueStores(queues);
    const consumers = [
      // The evaluation queue: batches of up to 10, one at a time.
      startRunQueueConsumer((event) => invokeJob('evaluator', event), {
        concurrency: 1,
        batchSize: 10,
        store: stores.evaluation,
      }),
      // The run queue: the real runner handler, as many jobs at once as Lambda would run.
      startRunQueueConsumer((event) => invokeJob('runner', event), {
        concurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : 10,
        store: stores.run,
      }),
      // The webhook queue: ten attempts at once (its delays on the service clock).
      startRunQueueConsumer((event) => invokeJob('deliverer', event), { concurrency: 10, store: stores.webhook }),
      // The generation queue: a few steps at once.
      startRunQueueConsumer((event) => invokeJob('generator', event), { concurrency: 4, store: stores.generation }),
      // The voice queue: one recording at a time (each is decoded whole).
      startRunQueueConsumer((event) => invokeJob('voice', event), { concurrency: 1, store: stores.voice }),
    ];
    const timers: NodeJS.Timeout[] = [];
    if (options.scanIntervalSeconds > 0) {
      for (const job of jobs.filter((j) => j.trigger === 'schedule')) {
        let running = false;
        const timer = setInterval(() => {
          if (running) return;
          running = true;
          invokeJob(job.name, {
            source: 'local.schedule',
            'detail-type': 'Scheduled Event',
            time: new Date().toISOString(),
            detail: {},
          })
            .catch((e: unknown) => console.error(`${job.name} failed`, e))
            .finally(() => (running = false));
        }, localPeriodSeconds(job, options.scanIntervalSeconds) * 1000);
        timer.unref();
        timers.push(timer);
      }
    }
    ready = true;
    // Lets `npm run invoke` and `npm run admin` find the running local services.
    writeRuntimeRecord(options.dataDir, {
      pid: process.pid,
      url,
      ready: true,
      env,
      queues: queues ? 'sqlite' : 'memory',
    });
    return {
      url,
      port,
      demoApiKey,
      demoOrganizationId: bootstrap.DEMO_ORG_ID,
      env,
      stop: async () => {
        timers.forEach(clearInterval);
        // Jobs in flight get a few seconds to finish; a stop never waits on an agent's timeout (a job
        // cut short is delivered again by a durable queue, or lost with an in-memory one).
        const settled = Promise.all([...consumers.map((c) => c.stop()), phoneLine.close()]);
        await Promise.race([settled, new Promise((r) => setTimeout(r, STOP_GRACE_MS).unref())]);
        await closeServer();
        await stopAll();
      },
    };
  } catch (error) {
    await closeServer();
    await stopAll();
    throw error;
  }
}
