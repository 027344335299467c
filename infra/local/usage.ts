import type { LocalTransport, QueueName } from '../../shared/queue/sqs.js';

/**
 * What the local runtime does in AWS's place, told to whoever listens (`npm run bench:runs` counts
 * it and prices it, bench/aws-cost.ts):
 * - `api`: a request API Gateway would bill (the authorizer allowed it);
 * - `invocation`: one run of a function's handler (a route, the authorizer or a job) and how long
 *   it took, as Lambda would bill it;
 * - `send`: the message bodies one enqueue puts on a job queue (the service sends them to SQS in
 *   batches: shared/queue/sqs.ts `batchesOf`);
 * - `delivery`: the messages one delivery hands a queue's consumer (one ReceiveMessage on AWS) and
 *   how many of them the consumer finished (deleted, in one DeleteMessageBatch);
 * - `s3`: a request to the S3 emulator (its method and path).
 * With no listener nothing is measured or built: each hook costs one check of a Set's size.
 */
export type LocalUsage =
  | { kind: 'api'; method: string; path: string }
  | { kind: 'invocation'; handler: string; ms: number }
  | { kind: 'send'; queue: QueueName; bodies: readonly string[] }
  | { kind: 'delivery'; queue: QueueName; bodies: readonly string[]; deleted: number }
  | { kind: 's3'; method: string; path: string };

const listeners = new Set<(usage: LocalUsage) => void>();

/** Calls `listener` with everything the local runtime does in AWS's place from now on; returns the unsubscribe. */
export function observeLocalUsage(listener: (usage: LocalUsage) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether anyone listens: a hook checks it before it measures or builds anything. */
export const usageObserved = (): boolean => listeners.size > 0;

/** Tells the listeners (call only when `usageObserved()`). */
export function reportUsage(usage: LocalUsage): void {
  for (const listener of listeners) listener(usage);
}

/** `transport` that first tells the listeners what it was given (each local transport is wrapped once). */
export function countedTransport(transport: LocalTransport): LocalTransport {
  return (queue, bodies, delayMs) => {
    if (usageObserved()) reportUsage({ kind: 'send', queue, bodies });
    transport(queue, bodies, delayMs);
  };
}

const QUEUES_BY_ARN_NAME: Record<string, QueueName> = {
  'evaluation-jobs': 'evaluation',
  'run-jobs': 'run',
  'webhook-jobs': 'webhook',
  'generation-jobs': 'generation',
  'voice-jobs': 'voice',
};

/** The queue a local store stands in for, by its name in the SQS records' source ARN; undefined for another (a test's). */
export const queueOfArnName = (arnName: string): QueueName | undefined => QUEUES_BY_ARN_NAME[arnName];
