import { ENV, optionalEnv } from '../config/env.js';
import type { LocalRunMessage } from './run-queue.js';
import { isLocalQueue, sendBatches } from './sqs.js';

/**
 * A job on the generation queue (DESIGN.md §12): step `step` of generation action `seq` of a
 * test, at most one call of the generator. Delivery is at least once: the job is idempotent.
 */
export interface GenerationJob {
  organizationId: string;
  testId: string;
  seq: number;
  step: number;
}

const queueUrl = optionalEnv(ENV.generationQueueUrl);
const LOCAL = isLocalQueue(queueUrl);

/** The local stand-in for the generation queue (`GENERATION_QUEUE_URL=local://…` or unset). */
export const localGenerationQueue = {
  messages: [] as LocalRunMessage[],
  /** Set by the local consumer: called after each enqueue. */
  onEnqueue: undefined as (() => void) | undefined,
};

let counter = 0;

export async function enqueueGenerationJobs(jobs: GenerationJob[]): Promise<void> {
  if (jobs.length === 0) return;
  if (LOCAL) {
    for (const job of jobs) localGenerationQueue.messages.push({ id: `gen-${++counter}`, body: JSON.stringify(job), receiveCount: 0, visibleAt: Date.now() });
    localGenerationQueue.onEnqueue?.();
    return;
  }
  await sendBatches(queueUrl!, 'generation queue', jobs.map((job) => JSON.stringify(job)));
}

export function parseGenerationJob(body: string): GenerationJob | undefined {
  try {
    const job = JSON.parse(body) as GenerationJob;
    if (typeof job.organizationId !== 'string' || typeof job.testId !== 'string') return undefined;
    if (!Number.isInteger(job.seq) || !Number.isInteger(job.step)) return undefined;
    return job;
  } catch {
    return undefined;
  }
}
