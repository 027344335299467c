import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv, type EnvName } from '../config/env.js';

/** A queue URL of the local runtime (`local://…`, or none): its messages stay in process. */
export function isLocalQueue(queueUrl: string | undefined): boolean {
  return !queueUrl || queueUrl.startsWith('local://');
}

const endpoint = optionalEnv(ENV.sqsEndpoint);
let client: SQSClient | undefined;

/**
 * Sends message bodies to an SQS queue, 10 per SendMessageBatch (SQS's limit), with one client
 * for every queue of the process, created on first use. A refused message fails the whole call,
 * so the caller's job is retried (consumers are idempotent).
 */
export async function sendBatches(queueUrl: string, label: string, bodies: string[], delaySeconds = 0): Promise<void> {
  client ??= new SQSClient({ ...(endpoint ? { endpoint } : {}) });
  for (let i = 0; i < bodies.length; i += 10) {
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body, ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}) })),
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

/**
 * A job queue: SQS at the URL in `env`, or, when that is `local://…` or unset, an in-process queue
 * (`local`) whose delays are counted on `now` (default the wall clock). `send` puts message bodies
 * on it, visible after `delayMs` (at most SQS's 15 minutes).
 */
export function jobQueue(options: { env: EnvName; label: string; idPrefix: string; now?: () => number }): { local: LocalQueue; send: (bodies: string[], delayMs?: number) => Promise<void> } {
  const queueUrl = optionalEnv(options.env);
  const local: LocalQueue = { messages: [], onEnqueue: undefined };
  const now = options.now ?? Date.now;
  let counter = 0;
  return {
    local,
    send: async (bodies, delayMs = 0) => {
      if (bodies.length === 0) return;
      const delay = Math.min(MAX_DELAY_SECONDS * 1000, Math.max(0, delayMs));
      if (isLocalQueue(queueUrl)) {
        const visibleAt = now() + delay;
        for (const body of bodies) local.messages.push({ id: `${options.idPrefix}-${++counter}`, body, receiveCount: 0, visibleAt });
        local.onEnqueue?.();
        return;
      }
      await sendBatches(queueUrl!, options.label, bodies, Math.ceil(delay / 1000));
    },
  };
}
