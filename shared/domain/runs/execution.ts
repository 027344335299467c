import { restoreItems } from '../../db/offload.js';
import { shardOf } from '../../db/run-counters.js';
import { toRecord } from '../../db/records.js';
import {
  countItems,
  failedUnstartedItems,
  markQueued,
  runCancelled as runCancelledIn,
  stepItems,
  writeCountedStep,
  writeStep,
  type CountMove,
  type Outcome,
  type RunRef,
  type StepChange,
} from '../../db/run-steps.js';
import {
  createRunSessions,
  getRunSession,
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
import { listTurns, spansOfSession } from '../../db/sessions.js';
import type { AuthContext } from '../../auth/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import {
  MAX_TURN_TEXT,
  SPAN_TYPES,
  type Evaluation,
  type Span,
  type SpanCreate,
  type Turn,
} from '../../schemas/sessions.js';
import type { TestCase } from '../../schemas/tests.js';
import { failedEveryReceive } from '../../queue/batch.js';
import { enqueueRunJobs, type RunJob } from '../../queue/run-queue.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import { missingParams, type EvaluationSources } from '../evaluation/context.js';
import { initialStatus, newEvaluation } from '../evaluation/evaluations.js';
import { abandonEvaluation, runEvaluation, score, settledEvaluation } from '../evaluation/evaluator.js';
import { createTurnSpans } from '../sessions/spans.js';
import {
  attemptTimeoutMs,
  callAgent,
  type AgentConnection,
  type CallOptions,
  type CallResult,
} from './caller/index.js';
import { simulateUserTurn } from './simulator.js';
import { afterCounted, CANCELLED_REASON, finishRun } from './runs.js';
import { slotTaker } from './rate-slot.js';
import { hangUpEnded, voiceStep } from './voice-steps.js';
import type { VoiceEvent } from '../voice/voice-event.js';
import { deterministicSessionId } from './session-ids.js';
import {
  carriedTurns,
  carryFor,
  carryOfRun,
  readEntryRecords,
  readStep,
  type PastTurn,
  type StepCarry,
  type StepRecords,
} from './step-context.js';

/** Test cases one fan-out job turns into sessions. */
export const FANOUT_PAGE = 100;
/** SCENARIOS conversations stop after this many turns unless the case says otherwise. */
export const DEFAULT_MAX_ITERATIONS = 10;
const SINGLE_TURN_TYPES = new Set(['QUALITY', 'RED_TEAMING']);
/**
 * Closing and scoring run on in the job of the last call unless less than this is left of it: a
 * close that scores in code takes a write, one with judged metrics their judge calls too.
 */
const CLOSE_IN_JOB_MS = 10_000;
const CLOSE_WITH_JUDGE_MS = 90_000;

/** What the job function gives the steps: the time left in this invocation. */
export interface JobContext {
  remainingMs?: () => number;
}

type StepJob = Extract<RunJob, { kind: 'step' }>;

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

// ---------------------------------------------------------------- session steps

export interface StepContext {
  orgId: string;
  runId: string;
  /** Where the run's sessions are counted. */
  run: RunRef;
  rec: StepRecords;
  /** Whether the run was cancelled, as read at the start of the job (and learnt since). */
  cancelled: boolean;
  /** The organization's monthly credits, read with the step when it may ask the simulated user. */
  monthlyCredits?: number | null;
  /** The session's turns, when this job knows them all (it recorded them, or its job carried them). */
  turns?: Turn[] | PastTurn[];
}

export type StepOutcome =
  | { kind: 'advanced'; called: boolean; session: RunSession }
  | { kind: 'requeue'; delayMs: number; attempts: number }
  | { kind: 'stop' };

/**
 * A session's step job. The session item holds its progress (`_seq` steps done); a job names the
 * step it performs, and every write of a step is conditional on the session still being at that
 * step, so a redelivered or stale job changes nothing. The job reads once (its session, whether
 * the run was cancelled, the secrets; the rest comes with the job); then steps that call no agent
 * (a stop decision, the end and scoring) run on in the same job, and after an agent call the next
 * step is enqueued unless all that is left is closing the session and scoring it.
 */
export async function processStep(queued: StepJob, jctx: JobContext = {}): Promise<void> {
  const loaded = await loadStep(queued);
  if (!loaded) return;
  const { ctx } = loaded;
  let session = loaded.session;
  // The end of a call (or a failed action) applies to whatever step its session is at.
  const job = queued.voice && queued.voice.event !== 'answer' ? { ...queued, seq: session._seq } : queued;
  // A call that ended after its session was counted: its recording is still the session's.
  if (job.voice?.event === 'hangup' && session._phase === 'DONE') await voiceStep(ctx, session, jctx, job.voice);
  if (session._phase === 'DONE') {
    // Counted by an earlier delivery (of this step or a later one) that may have stopped before closing the run.
    await afterCounted(ctx.run, session.id);
    return;
  }
  if (session._seq !== job.seq) {
    // Done by an earlier delivery; make sure the step after it was put on the queue.
    if (session._seq === job.seq + 1 && session._queued < session._seq) await enqueueNext(job, session, ctx.rec.carry);
    return;
  }
  let attemptsSoFar = job.attempts;
  let voice = job.voice;
  try {
    await stepLoop();
  } finally {
    // A voice session that ended hangs up its call (once the end is recorded).
    if (session.channel === 'PHONE') await hangUpEnded(session);
  }

  async function stepLoop(): Promise<void> {
    for (;;) {
      const outcome = await performStep(ctx, session, jctx, attemptsSoFar, voice);
      attemptsSoFar = undefined;
      voice = undefined;
      if (outcome.kind === 'stop') return;
      if (outcome.kind === 'requeue') {
        await enqueueRunJobs(
          [
            {
              kind: 'step',
              organizationId: job.organizationId,
              runId: job.runId,
              sessionId: job.sessionId,
              seq: session._seq,
              ...(outcome.attempts ? { attempts: outcome.attempts } : {}),
              carry: ctx.rec.carry,
            },
          ],
          outcome.delayMs,
        );
        return;
      }
      session = outcome.session;
      if (session._phase === 'DONE') return;
      // One agent call per job: the next call, or a long close, is the next job's.
      if (outcome.called && (callsLeft(ctx, session) || !timeToClose(ctx, jctx))) {
        await enqueueNext(job, session, { ...ctx.rec.carry, turns: pastTurnsToCarry(ctx.turns) });
        return;
      }
    }
  }
}

const timeToClose = (ctx: StepContext, jctx: JobContext) =>
  !jctx.remainingMs ||
  jctx.remainingMs() >=
    (ctx.rec.metrics.some((m) => m.source !== 'DETERMINISTIC' && m.source !== 'SELF_HOSTED')
      ? CLOSE_WITH_JUDGE_MS
      : CLOSE_IN_JOB_MS);

/** Whether the session still has an agent to call (another turn, or its FINALIZATION). */
function callsLeft(ctx: StepContext, s: RunSession): boolean {
  if (s.status !== 'PENDING') return false;
  if (!s._end) return true;
  return finalizationDue(ctx, s);
}

function finalizationDue(ctx: StepContext, s: RunSession): boolean {
  return Boolean(
    ctx.rec.finalization &&
      !s._finalDone &&
      (s._initDone || !ctx.rec.initialization) &&
      s._end?.stoppingReason !== CANCELLED_REASON &&
      !ctx.cancelled,
  );
}

const pastTurnsToCarry = (turns: StepContext['turns']) =>
  turns ? carriedTurns(turns.map((t) => ({ input: t.input, output: t.output }))) : undefined;

/** The step's one read; undefined when the session is gone or belongs to another run. */
async function loadStep(job: StepJob): Promise<{ session: RunSession; ctx: StepContext } | undefined> {
  let carry = job.carry;
  if (!carry) {
    // A job queued before jobs carried their records: find them from the run.
    const [session, run] = await Promise.all([
      getRunSession(job.sessionId),
      getStoredRun(job.organizationId, job.runId).catch((e: unknown) =>
        e instanceof NotFoundError ? undefined : Promise.reject(e),
      ),
    ]);
    if (!session || !run || session._runId !== job.runId) return undefined;
    carry = await carryOfRun(run, session);
    if (!carry) return undefined;
  }
  const multi = !SINGLE_TURN_TYPES.has(carry.test?.type ?? carry.testType);
  const { read, records } = await readStep(job.organizationId, job.runId, job.sessionId, carry, {
    organization: multi,
  });
  const session = read.session;
  if (!session || session._runId !== job.runId) return undefined;
  const cancelled = read.cancelled === true;
  const turns = carry.turns && carry.turns.length === session.turnCount ? carry.turns : undefined;
  return {
    session,
    ctx: {
      orgId: job.organizationId,
      runId: job.runId,
      run: { organizationId: job.organizationId, runId: job.runId, shards: carry.shards, threshold: carry.threshold },
      rec: records,
      cancelled,
      ...(read.monthlyCredits !== undefined ? { monthlyCredits: read.monthlyCredits } : {}),
      ...(turns ? { turns } : session.turnCount === 0 ? { turns: [] } : {}),
    },
  };
}

/**
 * A step that failed on every receive (storage or queue trouble: agent failures end the session
 * themselves), so the run does not stay RUNNING for ever:
 * - during the conversation, the session ends FAILED naming the step and the cause, and its
 *   closing step (scoring nothing, counting it, finishing the run when it was the last) is queued;
 * - at the close (the evaluations could not be planned), the session keeps its final status, gets
 *   no evaluations and the cause as its error, and is counted;
 * - while scoring, the evaluations still PENDING end FAILED with the cause (credits released) and
 *   the session is counted with the outcomes it has.
 */
export async function abandonStep(job: StepJob, error: Error): Promise<void> {
  const s = await getRunSession(job.sessionId);
  if (!s || s._runId !== job.runId || s._seq !== job.seq || s._phase === 'DONE') return; // done or moved on
  const cause = failedEveryReceive(`step ${job.seq + 1}`, error);
  const run = await runRefOf(job);
  const planIndex = job.carry?.planIndex;
  if (s._phase === 'EVALUATING') {
    await countSession(s, run, planIndex, (id) => abandonEvaluation(s.id, id, cause));
    return;
  }
  if (s._end || s.status !== 'PENDING') {
    const end = s._end ?? { status: 'FAILED' as const, stoppingReason: null, error: null };
    const error = end.error ?? `the session's evaluations were not planned: ${cause}`;
    const closed = await writeClose(s, { ...end, error }, [], { run, planIndex });
    if (closed && closed._phase === 'EVALUATING')
      await countSession(closed, run, planIndex, (id) => abandonEvaluation(s.id, id, cause));
    return;
  }
  const end = { status: 'FAILED' as const, stoppingReason: null, error: `the session stopped: ${cause}` };
  // A session still QUEUED is counted as pending: it moves to running, as its first step would have.
  const queued = s._phase === 'QUEUED';
  const moved = await writeStep({
    run,
    session: s,
    seq: s._seq,
    set: { _seq: s._seq + 1, _end: end, ...(queued ? { _phase: 'RUNNING' } : {}) },
    ...(queued ? { phase: 'QUEUED' as const, counts: [{ kind: 'start' as const }] } : {}),
  });
  if (moved) await enqueueNext(job, { ...s, _seq: s._seq + 1 }, job.carry);
}

/**
 * Ends the scoring of a session whose evaluations are stuck (the stall watchdog): each evaluation
 * still PENDING ends FAILED naming `cause` (its credits released), and the session is counted with
 * the outcomes it has, as a step that fails on every receive does.
 */
export async function abandonScoring(
  s: RunSession,
  run: RunRef,
  planIndex: number | undefined,
  cause: string,
): Promise<void> {
  if (s._phase !== 'EVALUATING') return;
  await countSession(s, run, planIndex, (id) => abandonEvaluation(s.id, id, cause));
}

/** Where a job's run counts its sessions: said by its carry, else by the run. */
async function runRefOf(job: StepJob): Promise<RunRef> {
  const ref = { organizationId: job.organizationId, runId: job.runId };
  if (job.carry) return { ...ref, shards: job.carry.shards, threshold: job.carry.threshold };
  const run = await getStoredRun(job.organizationId, job.runId);
  return { ...ref, shards: run._shards, ...(run._passCounted ? { threshold: run.threshold ?? 0.5 } : {}) };
}

async function enqueueNext(job: StepJob, session: RunSession, carry: StepCarry | undefined): Promise<void> {
  await enqueueRunJobs([
    {
      kind: 'step',
      organizationId: job.organizationId,
      runId: job.runId,
      sessionId: job.sessionId,
      seq: session._seq,
      ...(carry ? { carry } : {}),
    },
  ]);
  await markQueued(job.sessionId, session._seq);
}

function isMultiTurn(ctx: StepContext): boolean {
  return !SINGLE_TURN_TYPES.has(ctx.rec.test?.type ?? ctx.rec.carry.testType ?? 'QUALITY');
}

async function performStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
  voice?: VoiceEvent,
): Promise<StepOutcome> {
  if (s._phase === 'EVALUATING') {
    await countSession(s, ctx.run, ctx.rec.carry.planIndex, (evaluationId) => runEvaluation(s.id, evaluationId));
    return { kind: 'stop' };
  }
  if (s.status !== 'PENDING') return { kind: 'stop' };
  // A session that has not started (QUEUED) starts with its first write: no write before its call.
  if (s._phase === 'QUEUED' && ctx.cancelled) return failUnstarted(ctx, s);
  if (ctx.cancelled && !s._end) {
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: CANCELLED_REASON,
      error: 'the run was cancelled while this session ran',
    });
  }
  if (s.channel === 'PHONE') return s._end ? finishSession(ctx, s) : voiceStep(ctx, s, jctx, voice);
  if (s._end) {
    if (finalizationDue(ctx, s)) return finalizationStep(ctx, s, jctx, attemptsSoFar);
    return finishSession(ctx, s);
  }
  if (!ctx.rec.conversation)
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: null,
      error: 'CONVERSATION: the version has no live CONVERSATION endpoint connection',
    });
  if (ctx.rec.initialization && !s._initDone) return initializationStep(ctx, s, jctx, attemptsSoFar);
  return conversationStep(ctx, s, jctx, attemptsSoFar);
}

/** A session of a cancelled run that had not started fails: no agent is called for it. */
async function failUnstarted(ctx: StepContext, s: RunSession): Promise<StepOutcome> {
  const failed: RunSession = {
    ...s,
    status: 'FAILED',
    stoppingReason: CANCELLED_REASON,
    error: 'the run was cancelled before this session started',
    closedAt: clock.now().toISOString(),
    _phase: 'DONE',
  };
  const ok = await writeStep({
    run: ctx.run,
    session: s,
    seq: s._seq,
    set: {
      status: failed.status,
      stoppingReason: failed.stoppingReason,
      error: failed.error,
      closedAt: failed.closedAt,
      _phase: 'DONE',
    },
    phase: 'QUEUED',
    counts: [{ kind: 'done', status: 'FAILED', from: 'pending' }],
  });
  if (ok) await afterCounted(ctx.run, s.id);
  return { kind: 'stop' };
}

/**
 * The write of a step: conditional on the session's step. A session's first write (it is still
 * QUEUED: nothing is written before its first call, so a single-turn case costs one write after
 * it) also moves it from pending to running.
 */
function stepUpdate(
  ctx: StepContext,
  s: RunSession,
  set: Record<string, unknown>,
  options: Pick<StepChange, 'remove' | 'firstCall' | 'turn' | 'customId'> = {},
): StepChange {
  const change: StepChange = { run: ctx.run, session: s, seq: s._seq, set, ...options };
  if (s._phase !== 'QUEUED') return change;
  return { ...change, set: { _phase: 'RUNNING', ...set }, phase: 'QUEUED', counts: [{ kind: 'start' }] };
}

/** The session as a step's write (stepUpdate) leaves it. */
function afterWrite(s: RunSession, set: Record<string, unknown>, remove: string[] = []): RunSession {
  const session = { ...s, ...(s._phase === 'QUEUED' ? { _phase: 'RUNNING' } : {}), ...set } as RunSession;
  for (const k of remove) delete (session as unknown as Record<string, unknown>)[k];
  return session;
}

/** The session moves one step on: `set` written while it is still at its step, and the session as it now is. */
export async function advance(
  ctx: StepContext,
  s: RunSession,
  set: Record<string, unknown>,
  called: boolean,
  options: Pick<StepChange, 'remove' | 'firstCall' | 'turn' | 'customId'> = {},
): Promise<StepOutcome> {
  const ok = await writeStep(stepUpdate(ctx, s, set, options));
  if (!ok) return { kind: 'stop' };
  return { kind: 'advanced', called, session: afterWrite(s, set, options.remove) };
}

export function endStep(ctx: StepContext, s: RunSession, end: NonNullable<RunSession['_end']>): Promise<StepOutcome> {
  return advance(ctx, s, { _seq: s._seq + 1, _end: end }, false);
}

/** Template variables of a call. */
function variablesOf(ctx: StepContext, s: RunSession, extra: Record<string, unknown>): Record<string, unknown> {
  const tc = ctx.rec.testCase;
  const { finalizationError: _f, ...extracted } = s.metadata;
  void _f;
  return {
    ...extracted,
    context: tc?.context ?? null,
    session_id: s.metadata.session_id ?? s.customId ?? undefined,
    platform_session_id: s.id,
    test_case_id: tc?.id,
    test_id: s.testId,
    run_id: ctx.runId,
    language_code: tc?.languageCode ?? ctx.rec.test?.languageCode,
    past_turns: [],
    ...extra,
  };
}

function callOptions(
  ctx: StepContext,
  s: RunSession,
  connection: AgentConnection,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): CallOptions {
  const takeSlot = connection.rateLimit
    ? slotTaker({
        connectionId: connection.id,
        rateLimit: connection.rateLimit,
        ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs } : {}),
        attemptMs: attemptTimeoutMs(connection),
        stillWanted: async () => !(await runCancelled(ctx, s.id)),
      })
    : undefined;
  return {
    ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {}),
    ...(takeSlot ? { takeSlot } : {}),
    ...(attemptsSoFar ? { attemptsSoFar } : {}),
  };
}

/** Whether the run was cancelled since the job read it (asked again after a long wait for a rate slot). */
async function runCancelled(ctx: StepContext, sessionId: string): Promise<boolean> {
  const cancelled = await runCancelledIn(ctx.run, sessionId);
  if (cancelled) ctx.cancelled = true;
  return cancelled;
}

const RESERVED_KEYS = new Set(['output', 'retrieval_context', 'traces', 'usage', 'session_id']);

/** What an answer adds to the session: every other mapped key into metadata, session_id into customId when empty. */
function sessionAdditions(
  s: RunSession,
  result: Extract<CallResult, { kind: 'ok' }>,
  all: boolean,
): { set: Record<string, unknown>; customId?: string } {
  const metadata = { ...s.metadata };
  for (const [k, v] of Object.entries(result.extracted))
    if (v !== undefined && (all || !RESERVED_KEYS.has(k))) metadata[k] = v;
  const sessionId =
    result.sessionId ?? (typeof result.extracted.session_id === 'string' ? result.extracted.session_id : undefined);
  if (sessionId !== undefined) metadata.session_id = sessionId;
  const set: Record<string, unknown> = { metadata };
  if (!s.customId && sessionId) {
    set.customId = sessionId;
    return { set, customId: sessionId };
  }
  return { set };
}

async function initializationStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const conn = ctx.rec.initialization!;
  const result = await callAgent(
    conn,
    variablesOf(ctx, s, { input: {} }),
    callOptions(ctx, s, conn, jctx, attemptsSoFar),
  );
  if (result.kind === 'requeue') return { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };
  if (result.kind === 'failed')
    return endStep(ctx, s, { status: 'FAILED', stoppingReason: null, error: `INITIALIZATION failed: ${result.error}` });
  if (
    'session_id' in conn.outputMapping &&
    (result.extracted.session_id === undefined || result.extracted.session_id === null)
  ) {
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: null,
      error: 'INITIALIZATION failed: initialization returned no session_id',
    });
  }
  const { set, customId } = sessionAdditions(s, result, true);
  return advance(ctx, s, { ...set, _seq: s._seq + 1, _initDone: true }, true, customId ? { customId } : {});
}

/** The session's turns, from memory when this job knows them all, else read. */
async function turnsOf(ctx: StepContext, s: RunSession): Promise<PastTurn[]> {
  if (!ctx.turns || ctx.turns.length !== s.turnCount) ctx.turns = await listTurns(s.id);
  return ctx.turns;
}

async function finalizationStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const conn = ctx.rec.finalization!;
  const turns = await turnsOf(ctx, s);
  const result = await callAgent(
    conn,
    variablesOf(ctx, s, { input: {}, past_turns: turns.map((t) => ({ input: t.input, output: t.output })) }),
    callOptions(ctx, s, conn, jctx, attemptsSoFar),
  );
  if (result.kind === 'requeue') return { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };
  const metadata = { ...s.metadata };
  if (result.kind === 'failed') metadata.finalizationError = `FINALIZATION failed: ${result.error}`;
  else
    for (const [k, v] of Object.entries(result.extracted))
      if (v !== undefined && !RESERVED_KEYS.has(k)) metadata[k] = v;
  return advance(ctx, s, { metadata, _seq: s._seq + 1, _finalDone: true }, true);
}

function caseInputText(input: TestCase['input']): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string') return input;
  const message = (input as Record<string, unknown>).user_message;
  return typeof message === 'string' ? message : JSON.stringify(input);
}

/** The user's message of the session's next turn, or what the step does instead (the session ends, or another delivery moved it on). */
export type NextMessage =
  | { kind: 'message'; message: string; input: Record<string, unknown>; session: RunSession; turns: PastTurn[] }
  | { kind: 'outcome'; outcome: Promise<StepOutcome> | StepOutcome };

/**
 * The message of turn `turnCount + 1`: the case's input for the first turn, then the simulated
 * user's (asked once: its answer is written with its credit settlement, so a redelivery reads it).
 * Past the last turn, or when the simulated user stops, the session ends.
 */
export async function nextUserMessage(ctx: StepContext, at: RunSession): Promise<NextMessage> {
  let s = at;
  const tc = ctx.rec.testCase;
  const index = s.turnCount + 1;
  const multi = isMultiTurn(ctx);
  const maxTurns = multi ? (tc?.maxIterations ?? DEFAULT_MAX_ITERATIONS) : 1;
  const outcome = (o: Promise<StepOutcome> | StepOutcome): NextMessage => ({ kind: 'outcome', outcome: o });
  if (index > maxTurns)
    return outcome(
      endStep(ctx, s, {
        status: 'COMPLETED',
        stoppingReason: multi ? 'max_iterations' : 'completed',
        error: null,
      }),
    );
  const turns = multi ? await turnsOf(ctx, s) : [];

  let message: string;
  let input: Record<string, unknown>;
  if (index === 1 && tc?.input !== null && tc?.input !== undefined && tc.input !== '') {
    message = caseInputText(tc.input);
    input = typeof tc.input === 'string' ? { user_message: tc.input } : (tc.input as Record<string, unknown>);
  } else if (!multi) {
    return outcome(
      endStep(ctx, s, {
        status: 'FAILED',
        stoppingReason: null,
        error: `CONVERSATION failed: test case ${tc?.id ?? '(deleted)'} has no input`,
      }),
    );
  } else if (s._userMessage && s._userMessage.seq === s._seq) {
    message = s._userMessage.message;
    input = { user_message: message };
  } else {
    const stopped = (reason: string): SessionEnd => ({
      status: 'COMPLETED',
      stoppingReason: reason || 'simulator_stopped',
      error: null,
    });
    // What the answer makes of the session (its message kept, so a redelivery does not ask
    // again; or the end) is written with the settlement of its credits.
    const recordOf = (t: { stop: boolean; reason: string; message: string }): Record<string, unknown> =>
      t.stop && index > 1
        ? { _seq: s._seq + 1, _end: stopped(t.reason) }
        : { _userMessage: { seq: s._seq, message: t.message } };
    const sim = await simulateUserTurn({
      organizationId: s.organizationId,
      persona: tc?.userPersona ?? ctx.rec.test?.customUserPersona ?? undefined,
      goal: tc?.goal ?? undefined,
      scenario: tc?.scenario ?? undefined,
      stoppingCriterias: tc?.stoppingCriterias ?? [],
      languageCode: tc?.languageCode ?? ctx.rec.test?.languageCode,
      conversation: turns.map((t) => ({ input: t.input, output: t.output ?? '' })),
      opening: index === 1,
      ...(ctx.monthlyCredits !== undefined ? { monthlyCredits: ctx.monthlyCredits } : {}),
      record: (t) => stepItems(stepUpdate(ctx, at, recordOf(t))),
    });
    if (!sim.ok)
      return outcome(
        endStep(ctx, s, {
          status: 'FAILED',
          stoppingReason: null,
          error: `SIMULATED_USER failed before turn ${index}: ${sim.error}`,
        }),
      );
    if (sim.recorded === false) return outcome({ kind: 'stop' }); // another delivery moved the session on
    if (sim.stop && index > 1)
      return outcome({ kind: 'advanced', called: false, session: afterWrite(at, recordOf(sim)) });
    s = afterWrite(at, recordOf(sim));
    message = sim.message;
    input = { user_message: message };
  }
  return { kind: 'message', message, input, session: s, turns };
}

/**
 * How a recorded turn ends the session, if it does: a single-turn case after its turn, an empty
 * answer, the last allowed turn.
 */
export function endAfterTurn(ctx: StepContext, index: number, output: string): RunSession['_end'] {
  const multi = isMultiTurn(ctx);
  const maxTurns = multi ? (ctx.rec.testCase?.maxIterations ?? DEFAULT_MAX_ITERATIONS) : 1;
  if (!multi) return { status: 'COMPLETED', stoppingReason: 'completed', error: null };
  if (output.trim() === '') return { status: 'COMPLETED', stoppingReason: 'agent_empty_response', error: null };
  if (index >= maxTurns) return { status: 'COMPLETED', stoppingReason: 'max_iterations', error: null };
  return undefined;
}

async function conversationStep(
  ctx: StepContext,
  at: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const next = await nextUserMessage(ctx, at);
  if (next.kind === 'outcome') return next.outcome;
  const { message, input, turns } = next;
  const s = next.session;
  const index = s.turnCount + 1;

  const conn = ctx.rec.conversation!;
  const turnId = newId('inferenceResult');
  const vars = variablesOf(ctx, s, {
    input,
    inference_result_id: turnId,
    past_turns: turns.map((t) => ({ input: t.input, output: t.output })),
  });
  const result = await callAgent(conn, vars, callOptions(ctx, s, conn, jctx, attemptsSoFar));
  if (result.kind === 'requeue') return { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };
  if (result.kind === 'failed')
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: null,
      error: `CONVERSATION turn ${index} failed: ${result.error}`,
    });

  const now = clock.now().toISOString();
  const output = result.output.length > MAX_TURN_TEXT ? result.output.slice(0, MAX_TURN_TEXT) : result.output;
  const turn: Turn = {
    id: turnId,
    organizationId: s.organizationId,
    sessionId: s.id,
    index,
    input: message.slice(0, MAX_TURN_TEXT),
    output,
    retrievalContext: (result.retrievalContext ?? []).map((r) => r.slice(0, MAX_TURN_TEXT)),
    latencyMs: result.latencyMs,
    usage: {
      inputTokens: result.usage?.inputTokens ?? 0,
      outputTokens: result.usage?.outputTokens ?? 0,
      cacheReadInputTokens: 0,
    },
    cost: null,
    metadata: {},
    createdAt: now,
  };
  const { set, customId } = sessionAdditions(s, result, false);
  const end = endAfterTurn(ctx, index, output);
  const turnSet = { ...set, _seq: s._seq + 1, turnCount: index, lastTurnAt: now, ...(end ? { _end: end } : {}) };
  const allTurns = [...turns, turn];
  const spans = spansOf(turn, result);
  // (still QUEUED when this is the session's first write: the close counts it from pending)
  const after = { ...s, ...turnSet } as RunSession;
  delete after._userMessage;
  if (
    end &&
    !finalizationDue(ctx, after) &&
    timeToClose(ctx, jctx) &&
    (spans.length === 0 || !needsSpans(ctx.rec.metrics))
  ) {
    // The last turn: it is recorded, the session closed, scored and counted in one transaction.
    const closed = await finishSession(ctx, after, {
      set: turnSet,
      remove: ['_userMessage'],
      turn,
      ...(customId ? { customId } : {}),
      turns: allTurns as Turn[],
      seq: s._seq,
      spans: spans.length,
    });
    if (closed.kind !== 'advanced') return closed;
    // (counted with the close, so the run knows of them however soon it ends)
    await recordSpans(ctx, s, turn, spans, { counted: true });
    return { ...closed, called: true };
  }
  const moved = await advance(ctx, s, turnSet, true, {
    turn,
    remove: ['_userMessage'],
    ...(customId ? { customId } : {}),
  });
  if (moved.kind !== 'advanced') return moved;
  ctx.turns = allTurns;
  await recordSpans(ctx, s, turn, spans);
  return moved;
}

const SPAN_TYPE_SET = new Set<string>(SPAN_TYPES);
const isDate = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The turn's spans: a RETRIEVER span for `retrieval_context`, and one span per object of
 * `traces`. Ids derive from the turn, so a second attempt finds them (409) and adds nothing.
 */
function spansOf(turn: Turn, result: Extract<CallResult, { kind: 'ok' }>): SpanCreate[] {
  const spans: SpanCreate[] = [];
  if (result.retrievalContext?.length) {
    spans.push({
      id: `trace_${turn.id}_retrieval`,
      inferenceResultId: turn.id,
      name: 'retrieval_context',
      type: 'RETRIEVER',
      outputData: { documents: turn.retrievalContext },
    });
  }
  (result.traces ?? []).slice(0, 99).forEach((raw, i) => {
    if (!isObject(raw)) return;
    const type = typeof raw.type === 'string' ? raw.type.toUpperCase() : 'SPAN';
    spans.push({
      id: `trace_${turn.id}_${i}`,
      inferenceResultId: turn.id,
      name: typeof raw.name === 'string' && raw.name ? raw.name.slice(0, 500) : `span ${i + 1}`,
      type: (SPAN_TYPE_SET.has(type) ? type : 'SPAN') as SpanCreate['type'],
      ...(isObject(raw.inputData ?? raw.input)
        ? { inputData: (raw.inputData ?? raw.input) as Record<string, unknown> }
        : {}),
      ...(isObject(raw.outputData ?? raw.output) || typeof (raw.outputData ?? raw.output) === 'string'
        ? { outputData: (raw.outputData ?? raw.output) as Record<string, unknown> | string }
        : {}),
      ...(typeof raw.latencyMs === 'number' && raw.latencyMs >= 0 ? { latencyMs: raw.latencyMs } : {}),
      ...(isDate(raw.startTime) ? { startTime: new Date(raw.startTime).toISOString() } : {}),
      ...(isDate(raw.endTime) ? { endTime: new Date(raw.endTime).toISOString() } : {}),
    });
  });
  return spans;
}

/** Records the turn's spans; a trace the span schema refuses is left out and logged, it never fails the turn. */
async function recordSpans(
  ctx: StepContext,
  s: RunSession,
  turn: Turn,
  spans: SpanCreate[],
  options: { counted?: boolean } = {},
): Promise<void> {
  if (spans.length === 0) return;
  const auth: AuthContext = {
    organizationId: turn.organizationId,
    userId: s.userId,
    role: 'MEMBER',
    plan: 'FREE',
    keyId: `run:${ctx.runId}`,
  };
  try {
    const counted = options.counted
      ? []
      : countItems(ctx.run, s, { kind: 'spans', traces: { planIndex: ctx.rec.carry.planIndex, count: spans.length } });
    await createTurnSpans(auth, s, turn, spans, counted);
  } catch (error) {
    if (error instanceof ConflictError || error instanceof ValidationError) {
      logger.warn('run turn spans not recorded', { runId: ctx.runId, turnId: turn.id, error: error.message });
      return;
    }
    throw error;
  }
}

// ---------------------------------------------------------------- end of a session

const SPAN_PARAMS = new Set(['traces', 'tools_used']);
const needsSpans = (metrics: StoredMetric[]) => metrics.some((m) => m.evaluationParams.some((p) => SPAN_PARAMS.has(p)));

/** What the last turn's step writes with the close, when the two go in one transaction. */
interface WithTurn {
  set: Record<string, unknown>;
  remove: string[];
  turn: Turn;
  customId?: string;
  turns: Turn[];
  /** The step the session was at before the turn. */
  seq: number;
  /** Spans the turn will record (counted with the close). */
  spans: number;
}

/**
 * Ends a session and scores it: the session takes its final status and its evaluations are
 * written in one transaction. Evaluations scored in code (deterministic metrics) are written
 * settled and the session is counted in that same transaction; any other is run through the
 * evaluation path (credits included) and the session is counted after. A redelivery resumes
 * where it stopped.
 */
async function finishSession(ctx: StepContext, s: RunSession, withTurn?: WithTurn): Promise<StepOutcome> {
  const end = s._end ?? { status: 'COMPLETED' as const, stoppingReason: 'completed', error: null };
  const known = withTurn?.turns ?? (ctx.turns?.every((t) => 'id' in t) ? (ctx.turns as Turn[]) : undefined);
  const evaluations =
    end.stoppingReason === CANCELLED_REASON ? [] : await plannedEvaluations(ctx, s, end.status, known);
  const planIndex = ctx.rec.carry.planIndex;
  const session = await writeClose(s, end, evaluations, { run: ctx.run, planIndex, ...(withTurn ? { withTurn } : {}) });
  if (!session) return { kind: 'stop' };
  // Counted already when it scored in code; runEvaluation scores a PENDING evaluation and returns a settled one as it is.
  if (session._phase !== 'DONE')
    await countSession(session, ctx.run, planIndex, (evaluationId) => runEvaluation(session.id, evaluationId));
  return { kind: 'advanced', called: false, session: { ...session, _phase: 'DONE' } };
}

type SessionEnd = NonNullable<RunSession['_end']>;

const isOutcome = (e: Evaluation): e is Evaluation & { status: Outcome['status'] } =>
  e.status === 'SUCCESS' || e.status === 'FAILED' || e.status === 'SKIPPED';

const outcomeOf = (e: Evaluation & { status: Outcome['status'] }): Outcome => ({
  metricId: e.metricId,
  status: e.status,
  ...(e.score !== null ? { score: e.score } : {}),
});

/**
 * The session takes its final status and its evaluations are written (one transaction, with the
 * last turn when `withTurn` says so). When none is left to score, the session is counted in the
 * same transaction (phase DONE); else it is EVALUATING. Undefined when another delivery did it.
 */
async function writeClose(
  session: RunSession,
  end: SessionEnd,
  evaluations: Evaluation[],
  options: { run: RunRef; planIndex: number | undefined; withTurn?: WithTurn },
): Promise<RunSession | undefined> {
  const now = clock.now().toISOString();
  const settled = evaluations.every((e) => e.status !== 'PENDING');
  const closed: RunSession = {
    ...session,
    status: end.status,
    stoppingReason: end.stoppingReason,
    error: end.error,
    closedAt: now,
    _phase: settled ? 'DONE' : 'EVALUATING',
    _evaluationIds: evaluations.map((e) => e.id),
    _seq: session._seq + 1,
  };
  const wt = options.withTurn;
  // A session's first write may be its close (a single-turn case): it is counted from pending then.
  const unstarted = session._phase === 'QUEUED';
  const traces = { planIndex: options.planIndex, count: wt?.spans ?? 0 };
  const set = {
    ...(wt?.set ?? {}),
    status: closed.status,
    stoppingReason: closed.stoppingReason,
    error: closed.error,
    closedAt: now,
    _phase: closed._phase,
    _evaluationIds: closed._evaluationIds,
    _seq: closed._seq,
  };
  const count: CountMove = settled
    ? {
        kind: 'done',
        status: closed.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
        from: unstarted ? 'pending' : 'running',
        outcomes: evaluations.filter(isOutcome).map(outcomeOf),
        evaluations: { planIndex: options.planIndex, count: evaluations.length },
        traces,
      }
    : unstarted
      ? { kind: 'start', traces }
      : { kind: 'spans', traces };
  const change: StepChange = {
    run: options.run,
    session,
    seq: wt ? wt.seq : session._seq,
    set,
    ...(wt ? { remove: wt.remove, turn: wt.turn } : {}),
    ...(wt?.customId ? { customId: wt.customId } : {}),
    ...(unstarted ? { phase: 'QUEUED' as const } : {}),
    evaluations,
    counts: [count],
  };
  if (!settled) return (await writeStep(change)) ? closed : undefined;
  const counted = await writeCountedStep(change);
  if (counted === 'moved') return undefined;
  for (const e of evaluations) {
    if (e.status === 'SUCCESS' && e.evaluatedAt) countMetric(METRIC.EvaluationsSucceeded);
    if (e.status === 'FAILED') countMetric(METRIC.EvaluationsFailed);
  }
  countCounted(closed, options.run.runId, evaluations.filter(isOutcome).length);
  await runMayBeDone(options.run, counted);
  return closed;
}

/**
 * After a session was counted: the run is done only if it was the last of its shard (its count
 * said so); a run without shards is looked at after every count.
 */
async function runMayBeDone(run: RunRef, counted: 'counted' | 'last'): Promise<void> {
  if (run.shards && counted !== 'last') return;
  const status = await finishRun(run.organizationId, run.runId, clock.now().toISOString());
  if (status) logger.info('run finished', { runId: run.runId, status });
}

function countCounted(session: RunSession, runId: string, scored: number): void {
  countMetric(session.status === 'COMPLETED' ? METRIC.RunSessionsCompleted : METRIC.RunSessionsFailed);
  logger.debug('run session counted', { runId, sessionId: session.id, status: session.status, scored });
}

/**
 * Settles each of the session's evaluations with `settle` (scores it, or reads it), then, once,
 * moves the run's counters with the outcomes and finishes the run when this session was its last.
 */
async function countSession(
  session: RunSession,
  run: RunRef,
  planIndex: number | undefined,
  settle: (evaluationId: string) => Promise<Evaluation | undefined>,
): Promise<void> {
  const outcomes: Outcome[] = [];
  for (const id of session._evaluationIds ?? []) {
    const evaluation = await settle(id);
    if (evaluation && isOutcome(evaluation)) outcomes.push(outcomeOf(evaluation));
  }
  const counted = await writeCountedStep({
    run,
    session,
    seq: session._seq,
    set: { _phase: 'DONE' },
    anyStatus: true,
    phase: 'EVALUATING',
    counts: [
      {
        kind: 'done',
        status: session.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
        from: 'running',
        outcomes,
        evaluations: { planIndex, count: session._evaluationIds?.length ?? 0 },
      },
    ],
  });
  if (counted === 'moved') return;
  countCounted(session, run.runId, outcomes.length);
  await runMayBeDone(run, counted);
}

/** What an evaluation of the session may use: from memory (the job's records and turns), spans read only when a metric uses them. */
async function sourcesOf(ctx: StepContext, s: RunSession, turns: Turn[] | undefined): Promise<EvaluationSources> {
  const conversationId = ctx.rec.carry.connectionIds.conversation;
  const spans = needsSpans(ctx.rec.metrics)
    ? (await restoreItems((await spansOfSession(s.id)).filter((i) => !i.deletedAt))).map((i) => toRecord<Span>(i))
    : [];
  return {
    session: s,
    turns: turns ?? (await listTurns(s.id)),
    spans,
    product: ctx.rec.product,
    testCase: ctx.rec.testCase,
    conversationConnection: conversationId ? ctx.rec.connectionRecords.get(conversationId) : undefined,
  };
}

/**
 * The evaluations a finished session gets: per turn for single-turn tests, per session for
 * SCENARIOS. Deterministic metrics are scored here, in code, so they are written settled.
 */
async function plannedEvaluations(
  ctx: StepContext,
  s: RunSession,
  status: 'COMPLETED' | 'FAILED',
  turns: Turn[] | undefined,
): Promise<Evaluation[]> {
  const metrics = ctx.rec.metrics;
  if (metrics.length === 0) return [];
  const src = await sourcesOf(ctx, { ...s, status }, turns);
  const multi = isMultiTurn(ctx);
  const targets: (string | null)[] = multi
    ? status === 'COMPLETED' && src.turns.length > 0
      ? [null]
      : []
    : src.turns.filter((t) => t.output !== null).map((t) => t.id);
  if (targets.length === 0) return [];
  const now = clock.now().toISOString();
  const out: Evaluation[] = [];
  for (const turnId of targets) {
    for (const m of metrics) {
      const base = newEvaluation({
        organizationId: s.organizationId,
        sessionId: s.id,
        inferenceResultId: turnId,
        metric: m,
        monitorId: null,
        status: initialStatus(m),
        createdAt: now,
      });
      if (m.deletedAt) {
        out.push({
          ...base,
          status: 'SKIPPED',
          error: `metric ${m.id} was deleted after the run started`,
          evaluatedAt: now,
        });
      } else if (m.source === 'SELF_HOSTED') {
        out.push({
          ...base,
          status: 'SKIPPED',
          score: null,
          error: 'SELF_HOSTED metrics are scored by their owner: send the score with POST /evaluations',
          evaluatedAt: now,
        });
      } else {
        const missing = missingParams(src, m.evaluationParams);
        if (missing.length)
          out.push({ ...base, status: 'SKIPPED', error: `missing ${missing.join('; ')}`, evaluatedAt: now });
        else if (m.source === 'DETERMINISTIC' && base.status === 'PENDING')
          out.push(
            settledEvaluation(
              base,
              await score(m, src, turnId, { organizationId: s.organizationId, model: undefined }),
              0,
              now,
            ),
          );
        else out.push(base);
      }
    }
  }
  return out;
}
