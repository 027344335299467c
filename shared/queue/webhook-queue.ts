import { ENV, optionalEnv } from '../config/env.js';
import { clock } from '../domain/common/clock.js';
import { sendJobs, type LocalQueue } from './sqs.js';

/**
 * A job on the webhook delivery queue: attempt number `attempt` of one delivery.
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

/**
 * The local stand-in for the webhook queue (`WEBHOOK_QUEUE_URL=local://…` or unset). Delays are
 * counted on the service clock (`clock.now()`), so a test that moves the clock makes them due.
 */
export const localWebhookQueue: LocalQueue = { messages: [], onEnqueue: undefined };

/** Puts delivery jobs on the queue, visible after `delayMs` (at most SQS's 15 minutes). */
export async function enqueueDeliveries(jobs: DeliveryJob[], delayMs = 0): Promise<void> {
  const queue = {
    queueUrl,
    label: 'webhook queue',
    idPrefix: 'wh',
    local: localWebhookQueue,
    now: () => clock.now().getTime(),
  };
  await sendJobs(
    queue,
    jobs.map((job) => JSON.stringify(job)),
    delayMs,
  );
}

export function parseDeliveryJob(body: string): DeliveryJob | undefined {
  try {
    const job = JSON.parse(body) as DeliveryJob;
    if (job.kind !== 'deliver') return undefined;
    if (
      typeof job.organizationId !== 'string' ||
      typeof job.webhookId !== 'string' ||
      typeof job.deliveryId !== 'string' ||
      !Number.isInteger(job.attempt)
    )
      return undefined;
    return job;
  } catch {
    return undefined;
  }
}
