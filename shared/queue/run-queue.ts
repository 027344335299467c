import { ENV, optionalEnv } from '../config/env.js';
import type { StepCarry } from '../domain/runs/step-context.js';
import type { VoiceEvent } from '../domain/voice/voice-event.js';
import { sendJobs } from './sqs.js';

/**
 * A job on the run queue. Delivery is at least once: every job is idempotent.
 * - `fanout`: creates one page of a run's sessions (test `planIndex` of the run's plan, from
 *   `startKey`) and enqueues their first steps, then the next page.
 * - `step`: performs step `seq` of one session (at most one agent call) and enqueues the next;
 *   it carries the run's records its steps read (shared/domain/runs/step-context.ts).
 * - `cancel`: fails one page of a cancelled run's waiting sessions, then the next page.
 */
export type RunJob =
  | { kind: 'fanout'; organizationId: string; runId: string; planIndex: number; startKey?: Record<string, unknown> }
  | {
      kind: 'step';
      organizationId: string;
      runId: string;
      sessionId: string;
      seq: number /** Attempts a requeued call already spent (its retries go on from there). */;
      attempts?: number;
      /** What the session's steps need that does not change during the run (never a secret). */
      carry?: StepCarry;
      /** A PHONE session's call event (shared/domain/voice/voice-event.ts). */
      voice?: VoiceEvent;
    }
  | { kind: 'cancel'; organizationId: string; runId: string; startKey?: Record<string, unknown> };

export { MAX_DELAY_SECONDS } from './sqs.js';

const queueUrl = optionalEnv(ENV.runQueueUrl);

export async function enqueueRunJobs(jobs: RunJob[], delayMs = 0): Promise<void> {
  await sendJobs(
    { queueUrl, label: 'run queue', name: 'run' },
    jobs.map((job) => JSON.stringify(job)),
    delayMs,
  );
}

export function parseRunJob(body: string): RunJob | undefined {
  try {
    const job = JSON.parse(body) as RunJob;
    if (typeof job.runId !== 'string' || typeof job.organizationId !== 'string') return undefined;
    if (job.kind === 'fanout' && Number.isInteger(job.planIndex)) return job;
    if (job.kind === 'step' && typeof job.sessionId === 'string' && Number.isInteger(job.seq)) return job;
    if (job.kind === 'cancel') return job;
    return undefined;
  } catch {
    return undefined;
  }
}
