import { getRunWithShards, getRunSessions, runSessionIdPage, type RunSession } from '../../db/runs.js';
import {
  activeRuns,
  getRunWatch,
  putRunWatch,
  retireActiveRun,
  type ActiveRun,
  type RunWatch,
} from '../../db/run-watch.js';
import { ENV, optionalEnv } from '../../config/env.js';
import { NotFoundError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import { enqueueRunJobs, type RunJob } from '../../queue/run-queue.js';
import { FINISHED_RUN_STATUSES } from '../../schemas/runs.js';
import { clock } from '../common/clock.js';
import { failGroup } from './cancellation.js';
import type { RunRef } from './counting.js';
import { countersOf, finishRun } from './runs.js';

/**
 * The stall watchdog, run by the scanner: a run whose finished sessions have not moved for
 * STALL_MINUTES has the steps of its unfinished sessions (and its fan-out, if it had not created
 * every session) sent again, up to 3 times (the steps are idempotent); after that its unfinished
 * sessions end FAILED, so the run finishes and says so. A run that moves is left alone.
 */

export const STALL_REDELIVERIES = 3;
export const STALLED_ERROR = `stalled: no progress after ${STALL_REDELIVERIES} re-deliveries`;
const STALLED_REASON = 'stalled';
const DEFAULT_STALL_MINUTES = 15;
/** Sessions read at once. */
const PAGE = 100;
/** Sessions failed in one transaction. */
const GROUP = 25;

export function stallMinutes(): number {
  const raw = Number(optionalEnv(ENV.stallMinutes) ?? DEFAULT_STALL_MINUTES);
  return Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_STALL_MINUTES;
}

export type WatchAction = 'first' | 'moved' | 'wait' | 'redeliver' | 'fail';

/**
 * What to do about a run that has `finished` sessions now, given what was seen before: look again
 * later, send its steps again (movedAt restarts the wait), or fail what is left.
 */
export function watchDecision(
  seen: RunWatch | undefined,
  finished: number,
  now: Date,
  stallMs: number,
): { action: WatchAction; next?: RunWatch } {
  const at = now.toISOString();
  if (!seen) return { action: 'first', next: { finished, movedAt: at, redeliveries: 0 } };
  if (finished !== seen.finished) return { action: 'moved', next: { ...seen, finished, movedAt: at } };
  if (now.getTime() - Date.parse(seen.movedAt) < stallMs) return { action: 'wait' };
  if (seen.redeliveries < STALL_REDELIVERIES)
    return { action: 'redeliver', next: { finished, movedAt: at, redeliveries: seen.redeliveries + 1 } };
  return { action: 'fail', next: { ...seen, movedAt: at } };
}

export interface WatchReport {
  runs: number;
  redelivered: number;
  failed: number;
  retired: number;
}

/**
 * One pass over the runs not yet finished; a second pass at once changes nothing more. `only`
 * narrows it to some runs (tests that share a table with others).
 */
export async function watchRuns(
  now: Date = clock.now(),
  only: (run: ActiveRun) => boolean = () => true,
): Promise<WatchReport> {
  const report: WatchReport = { runs: 0, redelivered: 0, failed: 0, retired: 0 };
  const stallMs = stallMinutes() * 60_000;
  for (const active of (await activeRuns()).filter(only)) {
    report.runs++;
    const read = await getRunWithShards(active.organizationId, active.runId).catch((e: unknown) =>
      e instanceof NotFoundError ? undefined : Promise.reject(e),
    );
    if (!read || FINISHED_RUN_STATUSES.includes(read.run.status)) {
      await retireActiveRun(active.organizationId, active.runId);
      report.retired++;
      continue;
    }
    const { progress } = countersOf(read.run, read.sums);
    const seen = await getRunWatch(active.runId);
    const decision = watchDecision(seen, progress.completed + progress.failed, now, stallMs);
    if (!decision.next || !(await putRunWatch(active.runId, seen, decision.next))) continue;
    const ref: RunRef = { organizationId: read.run.organizationId, runId: read.run.id, shards: read.run._shards };
    if (decision.action === 'redeliver') {
      const sent = await redeliver(ref, read.run._fanoutDone === true, read.run._plan.length);
      countMetric(METRIC.RunsStalled);
      logger.warn('stalled run: steps sent again', {
        runId: ref.runId,
        organizationId: ref.organizationId,
        redelivery: decision.next.redeliveries,
        steps: sent,
      });
      report.redelivered++;
    } else if (decision.action === 'fail') {
      const failed = await failUnfinished(ref, now.toISOString());
      countMetric(METRIC.RunsStalled);
      logger.error('stalled run: unfinished sessions failed', {
        runId: ref.runId,
        organizationId: ref.organizationId,
        sessions: failed,
      });
      await finishRun(ref.organizationId, ref.runId, now.toISOString());
      report.failed++;
    }
  }
  return report;
}

const unfinished = (s: RunSession) => s.status === 'PENDING' && !s._end;

/** Every unfinished session of a run, a page at a time. */
async function* unfinishedPages(runId: string): AsyncGenerator<RunSession[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await runSessionIdPage(runId, PAGE, start);
    if (page.ids.length) yield (await getRunSessions(page.ids)).filter(unfinished);
    start = page.next;
  } while (start);
}

/** Sends the run's fan-out (when it had not created every session) and its unfinished sessions' steps again. */
async function redeliver(ref: RunRef, fanoutDone: boolean, planEntries: number): Promise<number> {
  const base = { organizationId: ref.organizationId, runId: ref.runId };
  if (!fanoutDone)
    await enqueueRunJobs(
      Array.from({ length: planEntries }, (_, planIndex) => ({ kind: 'fanout', ...base, planIndex })),
    );
  let sent = 0;
  for await (const sessions of unfinishedPages(ref.runId)) {
    const jobs: RunJob[] = sessions.map((s) => ({ kind: 'step', ...base, sessionId: s.id, seq: s._seq }));
    await enqueueRunJobs(jobs);
    sent += jobs.length;
  }
  return sent;
}

/** Fails every unfinished session of the run, naming the stall. */
async function failUnfinished(ref: RunRef, now: string): Promise<number> {
  let failed = 0;
  for await (const sessions of unfinishedPages(ref.runId))
    for (let i = 0; i < sessions.length; i += GROUP)
      failed += await failGroup(ref, sessions.slice(i, i + GROUP), now, {
        stoppingReason: STALLED_REASON,
        error: STALLED_ERROR,
      });
  return failed;
}
