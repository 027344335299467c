import { shardOf } from '../../db/run-counters.js';
import { failedUnstartedItems, type RunRef } from '../../db/run-steps.js';
import {
  createRunSessions,
  getRunSessions,
  getStoredRun,
  markTestRunOnVersion,
  reconcileFanout,
  runSessionIds,
  sealFanout,
  setRunStatus,
  testCasePage,
  testCasesPageById,
  type RunPlanEntry,
  type RunSession,
  type StoredRun,
} from '../../db/runs.js';
import { NotFoundError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { enqueueRunJobs, type RunJob } from '../../queue/run-queue.js';
import { clock } from '../common/clock.js';
import { finishRun } from './run-finish.js';
import { CANCELLED_REASON } from './session/machine.js';
import { deterministicSessionId } from './session-ids.js';
import { carryFor, readEntryRecords } from './step-context.js';
import type { TestCase } from '../../schemas/tests.js';

/** Test cases one fan-out job turns into sessions. */
export const FANOUT_PAGE = 100;
// ---------------------------------------------------------------- fan-out

/**
 * One page of a run's fan-out: creates the sessions of up to FANOUT_PAGE test cases (PENDING,
 * not production, with testCaseId and runId), 25 to a transaction, and puts each one's first step
 * on the queue carrying the records its steps need, then the next page. A redelivered page finds
 * its sessions and starts again those no step has started. The last page seals the run's counter
 * shards with what was actually created (cases deleted since the run was counted).
 */
export async function processFanout(
  job: Extract<RunJob, { kind: 'fanout' }>,
  delivery: { receives?: number } = {},
): Promise<void> {
  const run = await getStoredRun(job.organizationId, job.runId).catch((e: unknown) =>
    e instanceof NotFoundError ? undefined : Promise.reject(e),
  );
  if (!run) return;
  const now = clock.now().toISOString();
  if (run.status === 'PENDING')
    await setRunStatus(run.organizationId, run.id, ['PENDING'], { status: 'RUNNING', startedAt: now });
  const entry = run._plan[job.planIndex];
  if (!entry) return;
  const offset = Number(job.startKey?.offset ?? 0);
  const { cases, next, positions, offloaded } = await casesPage(
    run,
    entry,
    offset,
    job.startKey?.key as Record<string, unknown> | undefined,
  );
  const take = cases.slice(0, Math.max(0, entry.caseCount - offset));
  const cancelled = run.status === 'CANCELLED';
  const sessions = [...withRepetitions(take, run.repetitions ?? 1)].map(([testCase, repetition]) =>
    newRunSession(run, entry, testCase, repetition, cancelled, now),
  );
  const ref: RunRef = { organizationId: run.organizationId, runId: run.id, shards: run._shards };
  const created = await createRunSessions(sessions, (group) =>
    cancelled
      ? failedUnstartedItems(
          ref,
          group.map((s) => s.id),
        )
      : [],
  );
  // The next page goes on the queue once this page's sessions exist (the last page counts them all)
  // and before their first steps: ahead of them, so creating sessions keeps ahead of running them.
  const done = offset + positions;
  await enqueueNextFanout(run, job, entry, next, done);
  if (!cancelled && sessions.length) {
    const records = await readEntryRecords(run, entry);
    // A page delivered again after a failure (SQS redelivers it, its receive count says so) starts
    // again the sessions no step has started: the delivery that created them may have failed before
    // queueing their first steps. A copy delivered alongside the first (at-least-once) leaves them
    // to it: a first step queued twice would call the agent twice.
    const again = (delivery.receives ?? 1) > 1 ? sessions.filter((s) => !created.has(s.id)).map((s) => s.id) : [];
    const waiting = new Set(
      (again.length ? await getRunSessions(again) : [])
        .filter((s) => s._seq === 0 && s._phase === 'QUEUED')
        .map((s) => s.id),
    );
    const byCase = new Map(take.map((c) => [c.id, c]));
    const firstSteps: RunJob[] = sessions
      .filter((s) => created.has(s.id) || waiting.has(s.id))
      .map((s) => {
        const testCase = byCase.get(s.testCaseId!)!;
        return {
          kind: 'step',
          organizationId: run.organizationId,
          runId: run.id,
          sessionId: s.id,
          seq: 0,
          ...(records
            ? { carry: carryFor(run, job.planIndex, entry, records, testCase, offloaded.has(testCase.id)) }
            : {}),
        };
      });
    if (offset === 0) await markTestRunOnVersion(run.organizationId, entry.testId, run.versionId);
    await enqueueRunJobs(firstSteps);
  }

  if (!lastPage(run, job, entry, next, done)) return;
  await closeFanout(run);
  const status = await finishRun(run.organizationId, run.id, clock.now().toISOString());
  if (status) logger.info('run finished', { runId: run.id, status });
}

/**
 * Ends a run's fan-out with the sessions that exist (once: a later call changes nothing): counted
 * cases without a session leave `total`, and the counter shards learn how many sessions they
 * expect. The last fan-out page does it; so does the stall watchdog for a fan-out that never ended.
 * Returns how many counted cases got no session.
 */
export async function closeFanout(run: StoredRun): Promise<number> {
  const ids = await runSessionIds(run.id);
  const missing = run.progress.total - ids.length;
  if (run._shards) {
    const expected = new Array<number>(run._shards).fill(0);
    for (const id of ids) expected[shardOf(id, run._shards)]!++;
    await sealFanout(run.organizationId, run.id, missing, expected);
  } else await reconcileFanout(run.organizationId, run.id, missing);
  return missing;
}

/** Whether this page is the run's last: no next page of its test, and no test after it. */
function lastPage(
  run: StoredRun,
  job: Extract<RunJob, { kind: 'fanout' }>,
  entry: RunPlanEntry,
  next: unknown,
  done: number,
): boolean {
  return !(next && done < entry.caseCount) && job.planIndex + 1 >= run._plan.length;
}

async function enqueueNextFanout(
  run: StoredRun,
  job: Extract<RunJob, { kind: 'fanout' }>,
  entry: RunPlanEntry,
  next: unknown,
  done: number,
): Promise<void> {
  if (next && done < entry.caseCount) {
    await enqueueRunJobs([
      {
        kind: 'fanout',
        organizationId: run.organizationId,
        runId: run.id,
        planIndex: job.planIndex,
        startKey: { offset: done, ...(typeof next === 'object' ? { key: next } : {}) },
      },
    ]);
  } else if (job.planIndex + 1 < run._plan.length) {
    await enqueueRunJobs([
      { kind: 'fanout', organizationId: run.organizationId, runId: run.id, planIndex: job.planIndex + 1 },
    ]);
  }
}

function newRunSession(
  run: StoredRun,
  entry: RunPlanEntry,
  testCase: TestCase,
  repetition: number,
  cancelled: boolean,
  now: string,
): RunSession {
  return {
    id: deterministicSessionId(run.id, testCase.id, Date.parse(run.createdAt), repetition),
    organizationId: run.organizationId,
    productId: run.productId,
    versionId: run.versionId,
    userId: run.userId,
    customId: null,
    testId: entry.testId,
    testCaseId: testCase.id,
    runId: run.id,
    repetition,
    channel: run.channel ?? 'HTTP',
    context: testCase.context === null ? null : { value: testCase.context },
    stoppingReason: cancelled ? CANCELLED_REASON : null,
    recordingUri: null,
    voice: null,
    voiceError: null,
    error: cancelled ? 'the run was cancelled before this session started' : null,
    status: cancelled ? 'FAILED' : 'PENDING',
    isProduction: false,
    metadata: {},
    turnCount: 0,
    lastTurnAt: null,
    closedAt: cancelled ? now : null,
    createdAt: clock.now().toISOString(),
    _seq: 0,
    _queued: 0,
    _phase: cancelled ? 'DONE' : 'QUEUED',
    _runId: run.id,
  };
}

/** Each case once per repetition (1-based): a page of cases becomes cases × repetitions sessions. */
function* withRepetitions(cases: TestCase[], repetitions: number): Generator<[TestCase, number]> {
  for (const testCase of cases) for (let r = 1; r <= repetitions; r++) yield [testCase, r];
}

/** One page of an entry's cases; `positions` is how far the page moved (deleted cases included). */
async function casesPage(
  run: StoredRun,
  entry: RunPlanEntry,
  offset: number,
  key: Record<string, unknown> | undefined,
): Promise<{ cases: TestCase[]; next?: unknown; positions: number; offloaded: Set<string> }> {
  if (entry.testCaseIds) {
    const ids = entry.testCaseIds.slice(offset, offset + FANOUT_PAGE);
    const { cases, offloaded } = await testCasesPageById(run.organizationId, ids);
    return {
      cases,
      offloaded,
      next: offset + ids.length < entry.testCaseIds.length ? true : undefined,
      positions: ids.length,
    };
  }
  const page = await testCasePage(entry.testId, FANOUT_PAGE, key);
  return { cases: page.cases, next: page.next, positions: page.cases.length, offloaded: page.offloaded };
}
