import { ENV, optionalEnv } from '../config/env.js';
import { clock } from '../domain/common/clock.js';
import { MAX_DELAY_SECONDS } from './run-queue.js';
import { isLocalQueue, sendBatches } from './sqs.js';

/**
 * A job on the webhook delivery queue (DESIGN.md §16): attempt number `attempt` of one delivery.
 * Delivery is at least once: a job whose attempt was already made changes nothing.
 */
export interface DeliveryJob {
  kind: 'deliver';
  organizationId: string;
  webhookId: string;
  deliveryId: string;
  attempt: number;
}

const queueUrl = optionalEnv(ENV.webhookQueueUrl);
const LOCAL = isLocalQueue(queueUrl);

export interface LocalDeliveryMessage {
  id: string;
  body: string;
  receiveCount: number;
  /** Epoch ms (of the service clock) before which the message is not delivered. */
  visibleAt: number;
}

/**
 * The local stand-in for the webhook queue (`WEBHOOK_QUEUE_URL=local://…` or unset). Delays are
 * counted on the service clock (`clock.now()`), so a test that moves the clock makes them due.
 */
export const localWebhookQueue = {
  messages: [] as LocalDeliveryMessage[],
  onEnqueue: undefined as (() => void) | undefined,
};

let counter = 0;

/** Puts delivery jobs on the queue, visible after `delayMs` (at most SQS's 15 minutes). */
export async function enqueueDeliveries(jobs: DeliveryJob[], delayMs = 0): Promise<void> {
  if (jobs.length === 0) return;
  const delay = Math.min(MAX_DELAY_SECONDS * 1000, Math.max(0, delayMs));
  if (LOCAL) {
    const visibleAt = clock.now().getTime() + delay;
    for (const job of jobs) localWebhookQueue.messages.push({ id: `wh-${++counter}`, body: JSON.stringify(job), receiveCount: 0, visibleAt });
    localWebhookQueue.onEnqueue?.();
    return;
  }
  await sendBatches(queueUrl!, 'webhook queue', jobs.map((job) => JSON.stringify(job)), Math.ceil(delay / 1000));
}

export function parseDeliveryJob(body: string): DeliveryJob | undefined {
  try {
    const job = JSON.parse(body) as DeliveryJob;
    if (job.kind !== 'deliver') return undefined;
    if (typeof job.organizationId !== 'string' || typeof job.webhookId !== 'string' || typeof job.deliveryId !== 'string' || !Number.isInteger(job.attempt)) return undefined;
    return job;
  } catch {
    return undefined;
  }
}
