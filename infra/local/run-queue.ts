import { localRunQueue } from './queues.js';
import { type LocalDelayQueue, memoryStore, type QueueStore, type ReceivedMessage } from './queue-store.js';
import { queueOfArnName, reportUsage, usageObserved } from './usage.js';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type { LocalDelayQueue } from './queue-store.js';

/** Run jobs that failed three receives (the local stand-in for the run DLQ). */
export const runDeadLetters: { id: string; body: string }[] = [];
/** Generation jobs that failed three receives (the local stand-in for the generation DLQ). */
export const generationDeadLetters: { id: string; body: string }[] = [];
/** Voice jobs that failed three receives (the local stand-in for the voice DLQ). */
export const voiceDeadLetters: { id: string; body: string }[] = [];

const RUN_QUEUE: LocalDelayQueue = { queue: localRunQueue, deadLetters: runDeadLetters, now: () => Date.now() };

/** A failed job becomes visible again after this long (the local stand-in for the visibility timeout). */
export const RETRY_AFTER_MS = 1000;

type Consumer = (event: SQSEvent) => Promise<unknown>;

function recordOf(m: ReceivedMessage, arnName: string, id = m.id): SQSRecord {
  return {
    messageId: id,
    receiptHandle: id,
    body: m.body,
    attributes: {
      ApproximateReceiveCount: String(m.receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:local:000000000000:${arnName}`,
    awsRegion: 'local',
  };
}

/**
 * Delivers received messages to the consumer in one invocation (each twice when `duplicate`):
 * a message whose record the consumer reported failed (or all of them, when it threw) is released
 * for its next receive, the others are deleted.
 */
async function deliver(
  consumer: Consumer,
  batch: ReceivedMessage[],
  duplicate: boolean,
  store: QueueStore,
): Promise<void> {
  const records = batch.flatMap((m) =>
    duplicate ? [recordOf(m, store.arnName), recordOf(m, store.arnName, `${m.id}-dup`)] : [recordOf(m, store.arnName)],
  );
  let failed: Set<string>;
  try {
    const out = (await consumer({ Records: records })) as SQSBatchResponse | undefined;
    failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier.replace(/-dup$/, '')));
  } catch {
    failed = new Set(batch.map((m) => m.id));
  }
  for (const m of batch) {
    if (failed.has(m.id)) store.release(m, RETRY_AFTER_MS);
    else store.delete(m);
  }
  if (usageObserved()) {
    const queue = queueOfArnName(store.arnName);
    const deleted = batch.filter((m) => !failed.has(m.id)).length;
    if (queue) reportUsage({ kind: 'delivery', queue, bodies: batch.map((m) => m.body), deleted });
  }
}

/** The store a consumer or a drain works on: the one given, the in-memory queue given, or the in-memory run queue. */
const storeOf = (options: { store?: QueueStore; queue?: LocalDelayQueue }): QueueStore =>
  options.store ?? memoryStore(options.queue ?? RUN_QUEUE);

/**
 * A local queue's consumer, the stand-in for Lambda's SQS event source: up to `concurrency`
 * invocations at once, each with up to `batchSize` messages (1 unless given); delayed messages
 * wait for their time, failed ones come back until their third receive. Works on `store` (the
 * durable queues of `npm start`), or on the in-memory `queue` (default: the run queue). Runs until
 * stopped.
 */
export function startRunQueueConsumer(
  consumer: Consumer,
  options: {
    concurrency: number;
    batchSize?: number;
    queue?: LocalDelayQueue;
    store?: QueueStore;
    duplicate?: boolean;
  },
): { stop: () => Promise<void>; idle: () => Promise<void> } {
  const store = storeOf(options);
  const batchSize = options.batchSize ?? 1;
  let inFlight = 0;
  let stopped = false;
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<void>>();
  const idleWaiters: (() => void)[] = [];

  const pump = () => {
    scheduled = false;
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (inFlight < options.concurrency) {
      const batch = store.receive(batchSize);
      if (batch.length === 0) break;
      inFlight++;
      const p = deliver(consumer, batch, options.duplicate ?? false, store).finally(() => {
        inFlight--;
        running.delete(p);
        schedule();
      });
      running.add(p);
    }
    const waiting = store.waiting();
    if (inFlight === 0 && waiting === 0) for (const f of idleWaiters.splice(0)) f();
    if (inFlight >= options.concurrency) return; // the next delivery to end looks again
    const next = waiting > 0 ? store.nextVisibleAt() : undefined;
    const wait = Math.min(
      next === undefined ? Number.POSITIVE_INFINITY : Math.max(5, next - store.now()),
      store.pollMs ?? Number.POSITIVE_INFINITY,
    );
    if (Number.isFinite(wait)) {
      timer = setTimeout(pump, wait);
      timer.unref();
    }
  };
  /** One look at the store for any number of wake-ups in the same turn of the event loop. */
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  };
  store.watch(schedule);
  pump();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      store.watch(undefined);
      await Promise.all([...running]);
    },
    idle: () =>
      new Promise<void>((resolve) => {
        if (inFlight === 0 && store.waiting() === 0) resolve();
        else idleWaiters.push(resolve);
      }),
  };
}

/**
 * Delivers the run queue to a consumer until it is empty, waiting for delayed messages (tests).
 * With `duplicate`, every message is delivered twice in one batch (at-least-once delivery).
 */
export async function drainRunQueue(
  consumer: Consumer,
  options: {
    duplicate?: boolean;
    concurrency?: number;
    timeoutMs?: number;
    queue?: LocalDelayQueue;
    /** Return once nothing is visible, leaving delayed messages. */
    visibleOnly?: boolean;
  } = {},
): Promise<number> {
  const store = storeOf(options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let delivered = 0;
  while (store.waiting() > 0) {
    if (Date.now() > deadline) throw new Error(`the queue did not drain in time (${store.waiting()} messages left)`);
    const batch = store.receive(options.concurrency ?? 10);
    if (batch.length === 0) {
      if (options.visibleOnly) break;
      const next = store.nextVisibleAt() ?? store.now();
      await new Promise((r) => setTimeout(r, Math.max(5, Math.min(200, next - store.now()))));
      continue;
    }
    await Promise.all(batch.map((m) => deliver(consumer, [m], options.duplicate ?? false, store)));
    delivered += batch.length;
  }
  return delivered;
}
