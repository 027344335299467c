import { ENV, optionalEnv } from '../config/env.js';
import { isLocalQueue, sendBatches } from './sqs.js';

/** A job on the evaluation queue. Delivery is at least once: consumers make each job idempotent. */
export type EvaluationJob =
  | { kind: 'evaluation'; sessionId: string; evaluationId: string }
  | { kind: 'monitor'; monitorId: string; sessionId: string };

const queueUrl = optionalEnv(ENV.queueUrl);
const LOCAL = isLocalQueue(queueUrl);

/**
 * The local stand-in for SQS (`EVALUATION_QUEUE_URL=local://…`): messages wait here until a
 * consumer (the local runtime's evaluator loop, or a test) drains them.
 */
export const localQueue = {
  messages: [] as { id: string; body: string; receiveCount: number }[],
  /** Set by the local runtime: called after each enqueue. */
  onEnqueue: undefined as (() => void) | undefined,
};

let counter = 0;

export async function enqueue(jobs: EvaluationJob[]): Promise<void> {
  if (jobs.length === 0) return;
  if (LOCAL) {
    for (const job of jobs)
      localQueue.messages.push({ id: `local-${++counter}`, body: JSON.stringify(job), receiveCount: 0 });
    localQueue.onEnqueue?.();
    return;
  }
  await sendBatches(
    queueUrl!,
    'evaluation queue',
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
