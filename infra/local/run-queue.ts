import { localRunQueue, type LocalQueue, type LocalQueueMessage } from './queues.js';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** Run jobs that failed three receives (the local stand-in for the run DLQ). */
export const runDeadLetters: { id: string; body: string }[] = [];
/** Generation jobs that failed three receives (the local stand-in for the generation DLQ). */
export const generationDeadLetters: { id: string; body: string }[] = [];

/**
 * A local queue with delays: the run queue, or another queue built the same way (the webhook
 * queue). `now` is the clock its `visibleAt` times are counted on; `deadLetters` its DLQ.
 */
export interface LocalDelayQueue {
  queue: LocalQueue;
  deadLetters: { id: string; body: string }[];
  now: () => number;
}

const RUN_QUEUE: LocalDelayQueue = { queue: localRunQueue, deadLetters: runDeadLetters, now: () => Date.now() };

/** A failed job becomes visible again after this long (the local stand-in for the visibility timeout). */
const RETRY_AFTER_MS = 1000;

type Consumer = (event: SQSEvent) => Promise<unknown>;

function recordOf(m: LocalQueueMessage, id = m.id): SQSRecord {
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
    eventSourceARN: 'arn:aws:sqs:local:000000000000:run-jobs',
    awsRegion: 'local',
  };
}

/** Delivers one message (twice when `duplicate`); false when the consumer reported it failed. */
async function deliver(
  consumer: Consumer,
  m: LocalQueueMessage,
  duplicate: boolean,
  q: LocalDelayQueue,
): Promise<void> {
  m.receiveCount++;
  const records = duplicate ? [recordOf(m), recordOf(m, `${m.id}-dup`)] : [recordOf(m)];
  let failed = false;
  try {
    const out = (await consumer({ Records: records })) as SQSBatchResponse | undefined;
    failed = (out?.batchItemFailures ?? []).length > 0;
  } catch {
    failed = true;
  }
  if (!failed) return;
  if (m.receiveCount >= 3) q.deadLetters.push({ id: m.id, body: m.body });
  else q.queue.messages.push({ ...m, visibleAt: q.now() + RETRY_AFTER_MS });
}

function takeVisible(q: LocalDelayQueue, max: number): LocalQueueMessage[] {
  const now = q.now();
  const out: LocalQueueMessage[] = [];
  for (let i = 0; i < q.queue.messages.length && out.length < max; ) {
    const m = q.queue.messages[i]!;
    if (m.visibleAt <= now) {
      out.push(m);
      q.queue.messages.splice(i, 1);
    } else i++;
  }
  return out;
}

/**
 * The local runtime's run-queue consumer: up to `concurrency` jobs at once (the stand-in for
 * Lambda's concurrency), delayed messages wait for their time, failed ones come back until their
 * third receive. Runs until stopped.
 */
export function startRunQueueConsumer(
  consumer: Consumer,
  options: { concurrency: number; queue?: LocalDelayQueue; duplicate?: boolean },
): { stop: () => Promise<void>; idle: () => Promise<void> } {
  const q = options.queue ?? RUN_QUEUE;
  const messages = q.queue.messages;
  let inFlight = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<void>>();
  const idleWaiters: (() => void)[] = [];

  const pump = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const m of takeVisible(q, options.concurrency - inFlight)) {
      inFlight++;
      const p = deliver(consumer, m, options.duplicate ?? false, q).finally(() => {
        inFlight--;
        running.delete(p);
        setImmediate(pump);
      });
      running.add(p);
    }
    if (inFlight === 0 && messages.length === 0) for (const f of idleWaiters.splice(0)) f();
    const next = Math.min(...messages.map((m) => m.visibleAt));
    if (Number.isFinite(next) && inFlight < options.concurrency) {
      timer = setTimeout(pump, Math.max(5, next - q.now()));
      timer.unref();
    }
  };
  q.queue.onEnqueue = () => setImmediate(pump);
  pump();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      q.queue.onEnqueue = undefined;
      await Promise.all([...running]);
    },
    idle: () =>
      new Promise<void>((resolve) => {
        if (inFlight === 0 && messages.length === 0) resolve();
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
    queue?: LocalDelayQueue /** Return once nothing is visible, leaving delayed messages. */;
    visibleOnly?: boolean;
  } = {},
): Promise<number> {
  const q = options.queue ?? RUN_QUEUE;
  const messages = q.queue.messages;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let delivered = 0;
  while (messages.length > 0) {
    if (Date.now() > deadline) throw new Error(`the queue did not drain in time (${messages.length} messages left)`);
    const batch = takeVisible(q, options.concurrency ?? 10);
    if (batch.length === 0) {
      if (options.visibleOnly) break;
      const next = Math.min(...messages.map((m) => m.visibleAt));
      await new Promise((r) => setTimeout(r, Math.max(5, Math.min(200, next - q.now()))));
      continue;
    }
    await Promise.all(batch.map((m) => deliver(consumer, m, options.duplicate ?? false, q)));
    delivered += batch.length;
  }
  return delivered;
}
