import { getRunSessions, getStoredRun, runSessionIdPage, type RunSession } from '../../db/runs.js';
import { failSessions, type RunRef } from '../../db/run-steps.js';
import { NotFoundError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { enqueueRunJobs, type RunJob } from '../../queue/run-queue.js';
import { clock } from '../common/clock.js';
import { finishRun } from './run-finish.js';
import { CANCELLED_REASON } from './session/machine.js';

/**
 * The cancel job. POST /runs/{id}/cancel only marks the run (and its counter shards) cancelled,
 * a fixed few writes however many sessions it has, and queues this job; the job fails the run's
 * sessions that recorded no turn yet, a page at a time (one Query, one BatchGet), 25 to a
 * transaction. Nothing it fails calls an agent: a step reads its shard (cancelled?) just before a
 * session's first call, and a call already under way loses its result (its step finds the session
 * moved on) unless it recorded it first.
 * A session a step is moving meanwhile is left to that step (it sees the run cancelled).
 */

/** Sessions one cancel job reads. */
export const CANCEL_PAGE = 100;
/** Sessions failed in one transaction (two writes each at most, plus a counter per shard). */
const CANCEL_GROUP = 25;

/** Whether the cancel job fails this session: it is still waiting, or in the middle of its first call. */
export const waitingOnCancel = (s: RunSession): boolean =>
  s.status === 'PENDING' && s.turnCount === 0 && !s._end && (s._phase === 'QUEUED' || s._phase === 'RUNNING');

export async function processCancel(job: Extract<RunJob, { kind: 'cancel' }>): Promise<void> {
  const run = await getStoredRun(job.organizationId, job.runId).catch((e: unknown) =>
    e instanceof NotFoundError ? undefined : Promise.reject(e),
  );
  if (run?.status !== 'CANCELLED') return;
  const ref: RunRef = { organizationId: run.organizationId, runId: run.id, shards: run._shards };
  const page = await runSessionIdPage(run.id, CANCEL_PAGE, job.startKey);
  const waiting = (page.ids.length ? await getRunSessions(page.ids) : []).filter(waitingOnCancel);
  const now = clock.now().toISOString();
  let failed = 0;
  for (let i = 0; i < waiting.length; i += CANCEL_GROUP)
    failed += await failGroup(ref, waiting.slice(i, i + CANCEL_GROUP), now, CANCELLED);
  logger.debug('run cancel page', { runId: run.id, read: page.ids.length, failed });
  if (page.next) {
    await enqueueRunJobs([{ kind: 'cancel', organizationId: run.organizationId, runId: run.id, startKey: page.next }]);
    return;
  }
  await finishRun(run.organizationId, run.id, now);
}

/** Why sessions end FAILED without finishing: their `stoppingReason` and `error`. */
export interface EndedBy {
  stoppingReason: string;
  error: string;
}
const CANCELLED: EndedBy = {
  stoppingReason: CANCELLED_REASON,
  error: 'the run was cancelled before this session recorded a turn',
};

/**
 * Fails a group of sessions and counts them in one transaction; a session that moved on since it
 * was read (its step moved it, or an earlier delivery failed it) is left out and the rest written
 * again. Returns how many it failed. (The cancel job's, and the stall watchdog's, at most 25.)
 */
export async function failGroup(run: RunRef, group: RunSession[], now: string, by: EndedBy): Promise<number> {
  let left = group;
  while (left.length > 0) {
    const codes = await failSessions(run, left, {
      status: 'FAILED',
      stoppingReason: by.stoppingReason,
      error: by.error,
      closedAt: now,
      _phase: 'DONE',
    });
    if (!codes) return left.length;
    const moved = new Set(left.filter((_, j) => codes[j] === 'ConditionalCheckFailed').map((s) => s.id));
    if (moved.size === 0) throw new Error(`the cancel transaction was refused (${codes.join(', ')})`);
    left = left.filter((s) => !moved.has(s.id));
  }
  return 0;
}
