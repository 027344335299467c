import { MAX_RECEIVES } from '../../shared/queue/receives.js';
import type { LocalQueue, LocalQueueMessage } from './queues.js';

/** A message as a local consumer receives it. */
export interface ReceivedMessage {
  id: string;
  body: string;
  /** How many times it was received, this receive included (SQS's ApproximateReceiveCount). */
  receiveCount: number;
}

/**
 * Where a local queue keeps its messages, with SQS's semantics: a received message is hidden until
 * it is deleted (acknowledged) or released (its job failed), when it is visible again after the
 * retry delay, or moves to the queue's dead letters once it was received MAX_RECEIVES times.
 * Two implementations: in memory (`npm start -- --in-memory` and the tests, the arrays of
 * queues.ts) and in SQLite under the data directory (sqlite-queues.ts).
 */
export interface QueueStore {
  /** The queue's name in the SQS records' source ARN (`run-jobs`, …). */
  readonly arnName: string;
  /** Epoch ms on the clock of the queue's delays (the service clock for the webhook queue). */
  now(): number;
  /** Up to `max` visible messages, each received once more and hidden while its job runs. */
  receive(max: number): ReceivedMessage[];
  /** The job succeeded: the message is gone. */
  delete(message: ReceivedMessage): void;
  /** The job failed: visible again after `retryMs`, or a dead letter after its last receive. */
  release(message: ReceivedMessage, retryMs: number): void;
  /** Messages waiting (visible or delayed), not counting those received. */
  waiting(): number;
  /** When the next waiting message becomes visible (epoch ms on `now`'s clock); undefined when none waits. */
  nextVisibleAt(): number | undefined;
  /** Calls `wake` after each send of this process (undefined stops it). */
  watch(wake: (() => void) | undefined): void;
  /** How often an idle consumer looks again for messages another process may have put back (redrive); undefined: never. */
  readonly pollMs?: number;
}

/**
 * A local queue held in memory: its messages, its dead letters (the stand-in for its DLQ) and the
 * clock its delays count on. The tests read and change these arrays directly.
 */
export interface LocalDelayQueue {
  queue: LocalQueue;
  deadLetters: { id: string; body: string }[];
  now: () => number;
  /** The queue's name in the SQS records' source ARN (default `run-jobs`). */
  arnName?: string;
}

/** The messages of `q` that are visible now, up to `max`, taken out of the array in order. */
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
 * The store of an in-memory queue: a received message is out of the array while its job runs (a
 * stop loses it), a released one is pushed back at the end with its new time, a dead letter goes
 * to `deadLetters`.
 */
export function memoryStore(q: LocalDelayQueue): QueueStore {
  return {
    arnName: q.arnName ?? 'run-jobs',
    now: q.now,
    receive(max) {
      const taken = takeVisible(q, max);
      for (const m of taken) m.receiveCount++;
      return taken;
    },
    delete() {},
    release(message, retryMs) {
      const m = message as LocalQueueMessage;
      if (m.receiveCount >= MAX_RECEIVES) q.deadLetters.push({ id: m.id, body: m.body });
      else q.queue.messages.push({ ...m, visibleAt: q.now() + retryMs });
    },
    waiting: () => q.queue.messages.length,
    nextVisibleAt() {
      const next = Math.min(...q.queue.messages.map((m) => m.visibleAt));
      return Number.isFinite(next) ? next : undefined;
    },
    watch(wake) {
      q.queue.onEnqueue = wake;
    },
  };
}
