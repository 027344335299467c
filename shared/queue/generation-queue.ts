import { ENV, optionalEnv } from '../config/env.js';
import { sendJobs } from './sqs.js';

/**
 * A job on the generation queue: step `step` of generation action `seq` of a
 * test, at most one call of the generator. Delivery is at least once: the job is idempotent.
 */
export interface GenerationJob {
  organizationId: string;
  testId: string;
  seq: number;
  step: number;
}

const queueUrl = optionalEnv(ENV.generationQueueUrl);

export async function enqueueGenerationJobs(jobs: GenerationJob[]): Promise<void> {
  await sendJobs(
    { queueUrl, label: 'generation queue', name: 'generation' },
    jobs.map((job) => JSON.stringify(job)),
  );
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
