import { ENV, optionalEnv } from '../config/env.js';
import { sendJobs } from './sqs.js';

/** A job on the evaluation queue. Delivery is at least once: consumers make each job idempotent. */
export type EvaluationJob =
  | { kind: 'evaluation'; sessionId: string; evaluationId: string }
  | { kind: 'monitor'; monitorId: string; sessionId: string };

const queueUrl = optionalEnv(ENV.queueUrl);

export async function enqueue(jobs: EvaluationJob[]): Promise<void> {
  await sendJobs(
    { queueUrl, label: 'evaluation queue', name: 'evaluation' },
    jobs.map((job) => JSON.stringify(job)),
  );
}

export function parseJob(body: string): EvaluationJob | undefined {
  try {
    const job = JSON.parse(body) as EvaluationJob;
    if (job.kind === 'evaluation' && typeof job.evaluationId === 'string' && typeof job.sessionId === 'string')
      return job;
    if (job.kind === 'monitor' && typeof job.monitorId === 'string' && typeof job.sessionId === 'string') return job;
    return undefined;
  } catch {
    return undefined;
  }
}
