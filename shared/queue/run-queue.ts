import { ENV, optionalEnv } from '../config/env.js';
import { isLocalQueue, sendBatches } from './sqs.js';

/**
 * A job on the run queue (DESIGN.md §10). Delivery is at least once: every job is idempotent.
 * - `fanout`: creates one page of a run's sessions (test `planIndex` of the run's plan, from
 *   `startKey`) and enqueues their first steps, then the next page.
 * - `step`: performs step `seq` of one session (at most one agent call) and enqueues the next.
 */
export type RunJob =
  | { kind: 'fanout'; organizationId: string; runId: string; planIndex: number; startKey?: Record<string, unknown> }
  | { kind: 'step'; organizationId: string; runId: string; sessionId: string; seq: number; /** Attempts a requeued call already spent (its retries go on from there). */ attempts?: number };

/** SQS caps a message's delay at 15 minutes; a longer wait is taken in several hops. */
export const MAX_DELAY_SECONDS = 900;

const queueUrl = optionalEnv(ENV.runQueueUrl);
const LOCAL = isLocalQueue(queueUrl);

export interface LocalRunMessage {
  id: string;
  body: string;
  receiveCount: number;
  /** Epoch ms before which the message is not delivered (its delay). */
  visibleAt: number;
}

/**
 * The local stand-in for the run queue (`RUN_QUEUE_URL=local://…` or unset): messages wait here,
 * with their delays, until the local runtime's consumer (or a test) takes them.
 */
export const localRunQueue = {
  messages: [] as LocalRunMessage[],
  /** Set by the local consumer: called after each enqueue. */
  onEnqueue: undefined as (() => void) | undefined,
};

let counter = 0;

export async function enqueueRunJobs(jobs: RunJob[], delayMs = 0): Promise<void> {
  if (jobs.length === 0) return;
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delayMs / 1000)));
  if (LOCAL) {
    const visibleAt = Date.now() + Math.min(delayMs, MAX_DELAY_SECONDS * 1000);
    for (const job of jobs) localRunQueue.messages.push({ id: `run-${++counter}`, body: JSON.stringify(job), receiveCount: 0, visibleAt });
    localRunQueue.onEnqueue?.();
    return;
  }
  await sendBatches(queueUrl!, 'run queue', jobs.map((job) => JSON.stringify(job)), delaySeconds);
}

export function parseRunJob(body: string): RunJob | undefined {
  try {
    const job = JSON.parse(body) as RunJob;
    if (typeof job.runId !== 'string' || typeof job.organizationId !== 'string') return undefined;
    if (job.kind === 'fanout' && Number.isInteger(job.planIndex)) return job;
    if (job.kind === 'step' && typeof job.sessionId === 'string' && Number.isInteger(job.seq)) return job;
    return undefined;
  } catch {
    return undefined;
  }
}
