import { getRunSessions, getRunWithShards, runSessionIdPage, type RunSession, type StoredRun } from '../../db/runs.js';
import { activeRuns, getRunWatch, putRunWatch, retireActiveRun, type ActiveRun } from '../../db/stall-watch.js';
import { NotFoundError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { countStalled } from '../../observability/metrics.js';
import { enqueueRunJobs, type RunJob } from '../../queue/run-queue.js';
import { DEFAULT_THRESHOLD, FINISHED_RUN_STATUSES } from '../../schemas/runs.js';
import { clock } from '../common/clock.js';
import { acts, STALLED_ERROR, STALLED_REASON, stallMinutes, watchDecision } from '../common/stall.js';
import { failGroup } from './cancellation.js';
import type { RunRef } from '../../db/run-steps.js';
import { abandonScoring } from './abandon.js';
import { closeFanout } from './fanout.js';
import { finishRun } from './run-finish.js';
import { countersOf } from './run-view.js';

/**
 * The stall watchdog of runs, run by the scanner. A run's progress is its counters (sessions
 * started, completed, failed: summed from its shards, so nothing writes the run item per session)
 * compared with what the watchdog saw last time (its own record per run). When they have not moved
 * for STALL_MINUTES, its unfinished sessions are read (only then): a turn recorded since counts as
 * progress (a long conversation finishes no session for a while); else the steps of its unfinished
 * sessions (and its fan-out, if it had not created every session) are sent again, up to 3 times
 * (the steps are idempotent); after that its unfinished sessions end FAILED naming the stall, as a
 * cancel fails them, so the run finishes through its usual path (counters, status, `run.*` event).
 */

export { STALL_REDELIVERIES, STALLED_ERROR, stallMinutes, watchDecision } from '../common/stall.js';

/** Sessions read at once. */
const PAGE = 100;
/** Sessions failed in one transaction. */
const GROUP = 25;

export interface WatchReport {
  /** Runs on the index looked at. */
  runs: number;
  redelivered: number;
  failed: number;
  /** Finished runs taken off the index. */
  retired: number;
  /** Runs that could not be looked at (logged; the next pass tries again). */
  errors: number;
}

/**
 * One pass over the runs not yet finished; a second pass at once changes nothing more. `only`
 * narrows it to some runs (tests that share a table with others).
 */
export async function watchRuns(
  now: Date = clock.now(),
  only: (run: ActiveRun) => boolean = () => true,
): Promise<WatchReport> {
  const report: WatchReport = { runs: 0, redelivered: 0, failed: 0, retired: 0, errors: 0 };
  const stallMs = stallMinutes() * 60_000;
  for (const active of (await activeRuns()).filter(only)) {
    report.runs++;
    try {
      const done = await watchRun(active, now, stallMs);
      if (done) report[done]++;
    } catch (error) {
      report.errors++;
      logger.error('stall watchdog: run not looked at', {
        runId: active.runId,
        organizationId: active.organizationId,
        error: (error as Error).message,
      });
    }
  }
  return report;
}

async function watchRun(
  active: ActiveRun,
  now: Date,
  stallMs: number,
): Promise<'redelivered' | 'failed' | 'retired' | undefined> {
  const read = await getRunWithShards(active.organizationId, active.runId).catch((e: unknown) =>
    e instanceof NotFoundError ? undefined : Promise.reject(e),
  );
  if (!read || FINISHED_RUN_STATUSES.includes(read.run.status)) {
    await retireActiveRun(active.organizationId, active.runId);
    return 'retired';
  }
  const { run } = read;
  const { progress } = countersOf(run, read.sums);
  const marker = `${progress.total - progress.pending}/${progress.completed}/${progress.failed}`;
  const seen = await getRunWatch(run.id);
  let decision = watchDecision(seen, marker, now, stallMs);
  let sessions: RunSession[] = [];
  if (acts(decision.action)) {
    sessions = await unfinishedSessions(run.id);
    decision = watchDecision(seen, marker, now, stallMs, lastActivity(sessions));
  }
  // Written before acting, conditionally on what was read: of two passes at once, one acts.
  if (!decision.next || !(await putRunWatch(run.id, seen, decision.next, now))) return undefined;
  const ref: RunRef = {
    organizationId: run.organizationId,
    runId: run.id,
    shards: run._shards,
    ...(run._passCounted ? { threshold: run.threshold ?? DEFAULT_THRESHOLD } : {}),
  };
  const about = { runId: run.id, organizationId: run.organizationId, progress, stalledSince: seen?.movedAt };
  if (decision.action === 'redeliver') {
    const steps = await redeliver(run, sessions);
    countStalled('run');
    logger.warn('stalled run: steps sent again', {
      ...about,
      redelivery: decision.next.redeliveries,
      steps,
      fanout: run._fanoutDone !== true,
    });
    return 'redelivered';
  }
  if (decision.action === 'fail') {
    const failed = await failUnfinished(run, ref, sessions, now.toISOString());
    countStalled('run');
    const status = await finishRun(run.organizationId, run.id, now.toISOString());
    logger.error('stalled run: unfinished sessions failed', { ...about, ...failed, status: status ?? run.status });
    return 'failed';
  }
  return undefined;
}

/** A session not counted yet: still in its conversation, or closed and still scoring. */
const unfinished = (s: RunSession) => s._phase !== 'DONE';

/** Every unfinished session of a run, a page at a time. */
async function unfinishedSessions(runId: string): Promise<RunSession[]> {
  const out: RunSession[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await runSessionIdPage(runId, PAGE, start);
    if (page.ids.length) out.push(...(await getRunSessions(page.ids)).filter(unfinished));
    start = page.next;
  } while (start);
  return out;
}

/** The latest moment one of the sessions recorded a turn or closed. */
function lastActivity(sessions: RunSession[]): string | undefined {
  let latest: string | undefined;
  for (const s of sessions)
    for (const at of [s.lastTurnAt, s.closedAt]) if (at && (!latest || at > latest)) latest = at;
  return latest;
}

/** Sends the run's fan-out (when it had not created every session) and its unfinished sessions' steps again. */
async function redeliver(run: StoredRun, sessions: RunSession[]): Promise<number> {
  const base = { organizationId: run.organizationId, runId: run.id };
  if (run._fanoutDone !== true)
    await enqueueRunJobs(run._plan.map((_, planIndex) => ({ kind: 'fanout', ...base, planIndex })));
  const steps: RunJob[] = sessions.map((s) => ({ kind: 'step', ...base, sessionId: s.id, seq: s._seq }));
  await enqueueRunJobs(steps);
  return steps.length;
}

/**
 * Fails what is left of the run, naming the stall: sessions still in their conversation end FAILED
 * (counted as a cancel counts them), sessions still scoring have their pending evaluations failed
 * and are counted, and a fan-out that never ended is closed with the sessions it created.
 */
async function failUnfinished(
  run: StoredRun,
  ref: RunRef,
  sessions: RunSession[],
  now: string,
): Promise<{ sessions: number; scoring: number; casesWithoutSession: number }> {
  const talking = sessions.filter((s) => s.status === 'PENDING');
  let failed = 0;
  for (let i = 0; i < talking.length; i += GROUP)
    failed += await failGroup(ref, talking.slice(i, i + GROUP), now, {
      stoppingReason: STALLED_REASON,
      error: STALLED_ERROR,
    });
  const scoring = sessions.filter((s) => s.status !== 'PENDING' && s._phase === 'EVALUATING');
  for (const s of scoring) {
    const planIndex = run._plan.findIndex((p) => p.testId === s.testId);
    await abandonScoring(s, ref, planIndex < 0 ? undefined : planIndex, STALLED_ERROR);
  }
  const casesWithoutSession = run._fanoutDone === true ? 0 : await closeFanout(run);
  return { sessions: failed, scoring: scoring.length, casesWithoutSession };
}
