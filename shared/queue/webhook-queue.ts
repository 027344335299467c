import { ENV, optionalEnv } from '../config/env.js';
import { sendJobs } from './sqs.js';

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

/** Puts delivery jobs on the queue, visible after `delayMs` (at most SQS's 15 minutes). */
export async function enqueueDeliveries(jobs: DeliveryJob[], delayMs = 0): Promise<void> {
  await sendJobs(
    { queueUrl, label: 'webhook queue', name: 'webhook' },
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
