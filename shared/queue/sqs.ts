import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv } from '../config/env.js';

/** A queue URL of the local runtime (`local://…`, or none): its messages stay in process. */
export function isLocalQueue(queueUrl: string | undefined): boolean {
  return !queueUrl || queueUrl.startsWith('local://');
}

const endpoint = optionalEnv(ENV.sqsEndpoint);
let client: SQSClient | undefined;

/** The SQS client of the process, created on first send (`SQS_ENDPOINT` overrides the endpoint). */
export function sqs(): SQSClient {
  return (client ??= new SQSClient({ ...(endpoint ? { endpoint } : {}) }));
}

/**
 * Sends message bodies to an SQS queue, 10 per SendMessageBatch (SQS's limit). A refused message
 * fails the whole call, so the caller's job is retried (consumers are idempotent).
 */
export async function sendBatches(queueUrl: string, label: string, bodies: string[], delaySeconds = 0): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({
          Id: String(j),
          MessageBody: body,
          ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`the ${label} refused ${out.Failed.length} messages`);
  }
}

/** SQS caps a message's delay at 15 minutes; a longer wait is taken in several hops. */
export const MAX_DELAY_SECONDS = 900;

/** A message of a local queue: its body, how often it was received, and when it becomes visible. */
export interface LocalQueueMessage {
  id: string;
  body: string;
  receiveCount: number;
  /** Epoch ms (of the queue's clock) before which the message is not delivered (its delay). */
  visibleAt: number;
}

/** The local stand-in for an SQS queue: messages wait here until the local consumer (or a test) takes them. */
export interface LocalQueue {
  messages: LocalQueueMessage[];
  /** Set by the local consumer: called after each enqueue. */
  onEnqueue: (() => void) | undefined;
}

let counter = 0;

/**
 * Puts message bodies on a job queue, visible after `delayMs` (at most SQS's 15 minutes): SQS at
 * `queueUrl`, or, when that is `local://…` or unset, the in-process `local` queue, whose delays are
 * counted on `now` (default the wall clock). A plain function the queue modules call from their
 * enqueue functions, so a bundle that never enqueues carries no SQS client.
 */
export async function sendJobs(
  queue: { queueUrl: string | undefined; label: string; idPrefix: string; local: LocalQueue; now?: () => number },
  bodies: string[],
  delayMs = 0,
): Promise<void> {
  if (bodies.length === 0) return;
  const delay = Math.min(MAX_DELAY_SECONDS * 1000, Math.max(0, delayMs));
  if (isLocalQueue(queue.queueUrl)) {
    const visibleAt = (queue.now ?? Date.now)() + delay;
    for (const body of bodies)
      queue.local.messages.push({ id: `${queue.idPrefix}-${++counter}`, body, receiveCount: 0, visibleAt });
    queue.local.onEnqueue?.();
    return;
  }
  await sendBatches(queue.queueUrl!, queue.label, bodies, Math.ceil(delay / 1000));
}
