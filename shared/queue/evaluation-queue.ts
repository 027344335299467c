import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv } from '../config/env.js';

/** A job on the evaluation queue. Delivery is at least once: consumers make each job idempotent. */
export type EvaluationJob =
  | { kind: 'evaluation'; sessionId: string; evaluationId: string }
  | { kind: 'monitor'; monitorId: string; sessionId: string };

const queueUrl = optionalEnv(ENV.queueUrl);
const LOCAL = !queueUrl || queueUrl.startsWith('local://');
const endpoint = optionalEnv(ENV.sqsEndpoint);
const sqs = LOCAL ? undefined : new SQSClient({ ...(endpoint ? { endpoint } : {}) });

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
    for (const job of jobs) localQueue.messages.push({ id: `local-${++counter}`, body: JSON.stringify(job), receiveCount: 0 });
    localQueue.onEnqueue?.();
    return;
  }
  for (let i = 0; i < jobs.length; i += 10) {
    const batch = jobs.slice(i, i + 10);
    const out = await sqs!.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((job, j) => ({ Id: String(j), MessageBody: JSON.stringify(job) })),
      }),
    );
    if (out.Failed?.length) throw new Error(`the evaluation queue refused ${out.Failed.length} messages`);
  }
}

export function parseJob(body: string): EvaluationJob | undefined {
  try {
    const job = JSON.parse(body) as EvaluationJob;
    if (job.kind === 'evaluation' && typeof job.evaluationId === 'string' && typeof job.sessionId === 'string') return job;
    if (job.kind === 'monitor' && typeof job.monitorId === 'string' && typeof job.sessionId === 'string') return job;
    return undefined;
  } catch {
    return undefined;
  }
}
