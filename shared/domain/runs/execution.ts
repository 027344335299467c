import { getRecord, type TransactItem } from '../../db/catalog.js';
import { tableName } from '../../db/client.js';
import { getVisibleMetric } from '../../db/metrics.js';
import { takeRateSlot } from '../../db/rate-limits.js';
import {
  applyStep,
  createRunSession,
  getRunSession,
  getStoredRun,
  markQueued,
  markTestRunOnVersion,
  reconcileFanout,
  runCountersUpdate,
  runSessionIds,
  sessionStepUpdate,
  setRunStatus,
  testCasePage,
  testCasesById,
  turnPut,
  type RunPlanEntry,
  type RunSession,
  type StoredRun,
} from '../../db/runs.js';
import { customIdItem, evaluationItem, listTurns } from '../../db/sessions.js';
import type { AuthContext } from '../../auth/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import type { Version } from '../../schemas/products.js';
import { MAX_TURN_TEXT, SPAN_TYPES, type Evaluation, type SpanCreate, type Turn } from '../../schemas/sessions.js';
import type { TestCase, TestRecord } from '../../schemas/tests.js';
import { failedEveryReceive } from '../../queue/batch.js';
import { enqueueRunJobs, type RunJob } from '../../queue/run-queue.js';
import { clock } from '../common/clock.js';
import { testCaseEntity, testEntity, versionEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { missingParams } from '../evaluation/context.js';
import { initialStatus, newEvaluation } from '../evaluation/evaluations.js';
import { abandonEvaluation, runEvaluation } from '../evaluation/evaluator.js';
import { loadSources } from '../evaluation/sources.js';
import { testActivityUpdate } from '../sessions/sessions.js';
import { createSpanBatch } from '../sessions/spans.js';
import { callAgent, type AgentConnection, type CallOptions, type CallResult } from './caller/index.js';
import { loadAgentConnection } from './caller/connection.js';
import { simulateUserTurn } from './simulator.js';
import { CANCELLED_REASON, finishRun } from './runs.js';
import { deterministicSessionId } from './session-ids.js';

/** Test cases one fan-out job turns into sessions. */
export const FANOUT_PAGE = 100;
/** SCENARIOS conversations stop after this many turns unless the case says otherwise. */
export const DEFAULT_MAX_ITERATIONS = 10;
const SINGLE_TURN_TYPES = new Set(['QUALITY', 'RED_TEAMING']);

/** What the job function gives the steps: the time left in this invocation. */
export interface JobContext {
  remainingMs?: () => number;
}

// ---------------------------------------------------------------- fan-out

/**
 * One page of a run's fan-out: creates the sessions of up to FANOUT_PAGE test cases (PENDING,
 * not production, with testCaseId and runId; a redelivered page finds them and creates nothing),
 * puts each one's first step on the queue, then the next page. The last page reconciles the
 * run's counters with what was actually created (cases deleted since the run was counted).
 */
export async function processFanout(job: Extract<RunJob, { kind: 'fanout' }>): Promise<void> {
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
  const { cases, next, positions } = await casesPage(
    run,
    entry,
    offset,
    job.startKey?.key as Record<string, unknown> | undefined,
  );
  const take = cases.slice(0, Math.max(0, entry.caseCount - offset));
  const cancelled = run.status === 'CANCELLED';
  const firstSteps: RunJob[] = [];
  const startable: string[] = [];
  for (const [testCase, repetition] of withRepetitions(take, run.repetitions ?? 1)) {
    const sessionId = deterministicSessionId(run.id, testCase.id, Date.parse(run.createdAt), repetition);
    const session: RunSession = {
      id: sessionId,
      organizationId: run.organizationId,
      productId: run.productId,
      versionId: run.versionId,
      userId: run.userId,
      customId: null,
      testId: entry.testId,
      testCaseId: testCase.id,
      runId: run.id,
      repetition,
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
      _queued: -1,
      _phase: cancelled ? 'DONE' : 'QUEUED',
      _runId: run.id,
    };
    const created = await createRunSession(
      session,
      cancelled ? [runCountersUpdate(run.organizationId, run.id, { pending: -1, failed: 1 })] : [],
    );
    if (cancelled) continue;
    if (created) {
      startable.push(sessionId);
    } else {
      // A redelivered page: start only the sessions whose first job never made it to the queue.
      const existing = await getRunSession(sessionId);
      if (existing && existing._seq === 0 && existing._queued < 0 && existing._phase === 'QUEUED')
        startable.push(sessionId);
    }
  }
  if (take.length) await markTestRunOnVersion(run.organizationId, entry.testId, run.versionId);
  for (const id of startable)
    firstSteps.push({ kind: 'step', organizationId: run.organizationId, runId: run.id, sessionId: id, seq: 0 });
  await enqueueRunJobs(firstSteps);
  await Promise.all(startable.map((id) => markQueued(id, 0)));

  const done = offset + positions;
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
  } else {
    const created = (await runSessionIds(run.id)).length;
    await reconcileFanout(run.organizationId, run.id, run.progress.total - created);
    await finishRun(run.organizationId, run.id, clock.now().toISOString());
  }
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
): Promise<{ cases: TestCase[]; next?: unknown; positions: number }> {
  if (entry.testCaseIds) {
    const ids = entry.testCaseIds.slice(offset, offset + FANOUT_PAGE);
    const cases = await testCasesById(run.organizationId, ids);
    return { cases, next: offset + ids.length < entry.testCaseIds.length ? true : undefined, positions: ids.length };
  }
  const page = await testCasePage(entry.testId, FANOUT_PAGE, key);
  return { cases: page.cases, next: page.next, positions: page.cases.length };
}

// ---------------------------------------------------------------- session steps

interface StepContext {
  run: StoredRun;
  entry: RunPlanEntry | undefined;
  version: Version;
  test: TestRecord | undefined;
  testCase: TestCase | undefined;
  conversation: AgentConnection | undefined;
  initialization: AgentConnection | undefined;
  finalization: AgentConnection | undefined;
}

type StepOutcome =
  | { kind: 'advanced'; called: boolean }
  | { kind: 'requeue'; delayMs: number; attempts: number }
  | { kind: 'stop' };

/**
 * A session's step job. The session item holds its progress (`_seq` steps done); a job names the
 * step it performs, and every write of a step is conditional on the session still being at that
 * step, so a redelivered or stale job changes nothing. Steps that call no agent (a stop decision,
 * the end and scoring) run on in the same job; after one agent call the next step is enqueued.
 */
export async function processStep(job: Extract<RunJob, { kind: 'step' }>, jctx: JobContext = {}): Promise<void> {
  let session = await getRunSession(job.sessionId);
  if (!session || session._runId !== job.runId) return;
  if (session._seq !== job.seq) {
    // Done by an earlier delivery; make sure the step after it was put on the queue.
    if (session._seq === job.seq + 1 && session._queued < session._seq && session._phase !== 'DONE')
      await enqueueNext(job, session._seq);
    return;
  }
  if (session._phase === 'DONE') {
    // Counted by an earlier delivery that may have stopped before closing the run.
    await finishRun(job.organizationId, job.runId, clock.now().toISOString());
    return;
  }
  const ctx = await loadStepContext(job.organizationId, job.runId, session);
  if (!ctx) return;
  let attemptsSoFar = job.attempts;
  for (;;) {
    const outcome = await performStep(ctx, session, jctx, attemptsSoFar);
    attemptsSoFar = undefined;
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
          },
        ],
        outcome.delayMs,
      );
      return;
    }
    const fresh = await getRunSession(session.id);
    if (!fresh || fresh._phase === 'DONE') return;
    if (outcome.called) {
      await enqueueNext(job, fresh._seq);
      return;
    }
    session = fresh;
  }
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
export async function abandonStep(job: Extract<RunJob, { kind: 'step' }>, error: Error): Promise<void> {
  const s = await getRunSession(job.sessionId);
  if (!s || s._runId !== job.runId || s._seq !== job.seq || s._phase === 'DONE') return; // done or moved on
  const cause = failedEveryReceive(`step ${job.seq + 1}`, error);
  if (s._phase === 'EVALUATING') {
    await countSession(s, job.runId, (id) => abandonEvaluation(s.id, id, cause));
    return;
  }
  if (s._end || s.status !== 'PENDING') {
    const end = s._end ?? { status: 'FAILED' as const, stoppingReason: null, error: null };
    const closed = await closeSession(
      s,
      { ...end, error: end.error ?? `the session's evaluations were not planned: ${cause}` },
      [],
    );
    if (closed) await countSession(closed, job.runId, (id) => abandonEvaluation(s.id, id, cause));
    return;
  }
  const end = { status: 'FAILED' as const, stoppingReason: null, error: `the session stopped: ${cause}` };
  // A session still QUEUED is counted as pending: it moves to running, as its first step would have.
  const queued = s._phase === 'QUEUED';
  const items = [
    sessionStepUpdate(
      s.id,
      s._seq,
      { _seq: s._seq + 1, _end: end, ...(queued ? { _phase: 'RUNNING' } : {}) },
      queued ? { phase: 'QUEUED' } : {},
    ),
  ];
  if (queued) items.push(runCountersUpdate(s.organizationId, job.runId, { pending: -1, running: 1 }));
  if (await applyStep(items)) await enqueueNext(job, s._seq + 1);
}

async function enqueueNext(job: Extract<RunJob, { kind: 'step' }>, seq: number): Promise<void> {
  await enqueueRunJobs([
    { kind: 'step', organizationId: job.organizationId, runId: job.runId, sessionId: job.sessionId, seq },
  ]);
  await markQueued(job.sessionId, seq);
}

async function optionalConnection(orgId: string, id: string | null): Promise<AgentConnection | undefined> {
  if (!id) return undefined;
  return (await loadAgentConnection(orgId, id)).connection;
}

async function loadStepContext(orgId: string, runId: string, session: RunSession): Promise<StepContext | undefined> {
  const run = await getStoredRun(orgId, runId).catch((e: unknown) =>
    e instanceof NotFoundError ? undefined : Promise.reject(e),
  );
  if (!run) return undefined;
  const version = await getRecord<Version>(versionEntity, orgId, session.versionId, { includeDeleted: true });
  const [test, testCase] = await Promise.all([
    session.testId ? getRecord<TestRecord>(testEntity, orgId, session.testId, { includeDeleted: true }) : undefined,
    session.testCaseId
      ? getRecord<TestCase>(testCaseEntity, orgId, session.testCaseId, { includeDeleted: true })
      : undefined,
  ]);
  const load = (id: string | null) =>
    optionalConnection(orgId, id).catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
  const [conversation, initialization, finalization] = await Promise.all([
    load(version.conversationEndpointConnectionId),
    load(version.initializationEndpointConnectionId),
    load(version.finalizationEndpointConnectionId),
  ]);
  return {
    run,
    entry: run._plan.find((p) => p.testId === session.testId),
    version,
    test,
    testCase,
    conversation,
    initialization,
    finalization,
  };
}

function isMultiTurn(ctx: StepContext): boolean {
  return !SINGLE_TURN_TYPES.has(ctx.test?.type ?? ctx.entry?.testType ?? 'QUALITY');
}

async function performStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const seq = s._seq;
  if (s._phase === 'EVALUATING') return finishSession(ctx, s);
  if (s.status !== 'PENDING') return { kind: 'stop' };
  if (s._phase === 'QUEUED') {
    const moved = await applyStep([
      sessionStepUpdate(s.id, seq, { _phase: 'RUNNING' }, { phase: 'QUEUED' }),
      runCountersUpdate(s.organizationId, ctx.run.id, { pending: -1, running: 1 }),
    ]);
    return moved ? { kind: 'advanced', called: false } : { kind: 'stop' };
  }
  const run = await getStoredRun(s.organizationId, ctx.run.id);
  ctx.run = run;
  if (run.status === 'CANCELLED' && !s._end) {
    return endStep(s, {
      status: 'FAILED',
      stoppingReason: CANCELLED_REASON,
      error: 'the run was cancelled while this session ran',
    });
  }
  if (s._end) {
    if (
      ctx.finalization &&
      !s._finalDone &&
      (s._initDone || !ctx.initialization) &&
      s._end.stoppingReason !== CANCELLED_REASON
    )
      return finalizationStep(ctx, s, jctx, attemptsSoFar);
    return finishSession(ctx, s);
  }
  if (!ctx.conversation)
    return endStep(s, {
      status: 'FAILED',
      stoppingReason: null,
      error: 'CONVERSATION: the version has no live CONVERSATION endpoint connection',
    });
  if (ctx.initialization && !s._initDone) return initializationStep(ctx, s, jctx, attemptsSoFar);
  return conversationStep(ctx, s, jctx, attemptsSoFar);
}

function endStep(s: RunSession, end: NonNullable<RunSession['_end']>): Promise<StepOutcome> {
  return applyStep([sessionStepUpdate(s.id, s._seq, { _seq: s._seq + 1, _end: end })]).then((ok) =>
    ok ? { kind: 'advanced', called: false } : { kind: 'stop' },
  );
}

/** Template variables of a call. */
function variablesOf(ctx: StepContext, s: RunSession, extra: Record<string, unknown>): Record<string, unknown> {
  const tc = ctx.testCase;
  const { finalizationError: _f, ...extracted } = s.metadata;
  void _f;
  return {
    ...extracted,
    context: tc?.context ?? null,
    session_id: s.metadata.session_id ?? s.customId ?? undefined,
    platform_session_id: s.id,
    test_case_id: tc?.id,
    test_id: s.testId,
    run_id: ctx.run.id,
    language_code: tc?.languageCode ?? ctx.test?.languageCode,
    past_turns: [],
    ...extra,
  };
}

function callOptions(connection: AgentConnection, jctx: JobContext, attemptsSoFar: number | undefined): CallOptions {
  return {
    ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {}),
    ...(connection.rateLimit
      ? { takeSlot: () => takeRateSlot(connection.id, connection.rateLimit!, clock.now().getTime()) }
      : {}),
    ...(attemptsSoFar ? { attemptsSoFar } : {}),
  };
}

const RESERVED_KEYS = new Set(['output', 'retrieval_context', 'traces', 'usage', 'session_id']);

/** What an answer adds to the session: every other mapped key into metadata, session_id into customId when empty. */
function sessionAdditions(
  s: RunSession,
  result: Extract<CallResult, { kind: 'ok' }>,
  all: boolean,
): { set: Record<string, unknown>; items: TransactItem[] } {
  const metadata = { ...s.metadata };
  for (const [k, v] of Object.entries(result.extracted))
    if (v !== undefined && (all || !RESERVED_KEYS.has(k))) metadata[k] = v;
  const sessionId =
    result.sessionId ?? (typeof result.extracted.session_id === 'string' ? result.extracted.session_id : undefined);
  if (sessionId !== undefined) metadata.session_id = sessionId;
  const set: Record<string, unknown> = { metadata };
  const items: TransactItem[] = [];
  if (!s.customId && sessionId) {
    set.customId = sessionId;
    items.push({ Put: { TableName: tableName, Item: customIdItem(s.organizationId, sessionId, s.id) } });
  }
  return { set, items };
}

async function initializationStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const conn = ctx.initialization!;
  const result = await callAgent(conn, variablesOf(ctx, s, { input: {} }), callOptions(conn, jctx, attemptsSoFar));
  if (result.kind === 'requeue') return { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };
  if (result.kind === 'failed')
    return endStep(s, { status: 'FAILED', stoppingReason: null, error: `INITIALIZATION failed: ${result.error}` });
  if (
    'session_id' in conn.outputMapping &&
    (result.extracted.session_id === undefined || result.extracted.session_id === null)
  ) {
    return endStep(s, {
      status: 'FAILED',
      stoppingReason: null,
      error: 'INITIALIZATION failed: initialization returned no session_id',
    });
  }
  const { set, items } = sessionAdditions(s, result, true);
  const ok = await applyStep([
    sessionStepUpdate(s.id, s._seq, { ...set, _seq: s._seq + 1, _initDone: true }),
    ...items,
  ]);
  return ok ? { kind: 'advanced', called: true } : { kind: 'stop' };
}

async function finalizationStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const conn = ctx.finalization!;
  const turns = await listTurns(s.id);
  const result = await callAgent(
    conn,
    variablesOf(ctx, s, { input: {}, past_turns: turns.map((t) => ({ input: t.input, output: t.output })) }),
    callOptions(conn, jctx, attemptsSoFar),
  );
  if (result.kind === 'requeue') return { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };
  const metadata = { ...s.metadata };
  if (result.kind === 'failed') metadata.finalizationError = `FINALIZATION failed: ${result.error}`;
  else
    for (const [k, v] of Object.entries(result.extracted))
      if (v !== undefined && !RESERVED_KEYS.has(k)) metadata[k] = v;
  const ok = await applyStep([
    sessionStepUpdate(s.id, s._seq, { metadata, _seq: s._seq + 1, _finalDone: true }, { anyStatus: false }),
  ]);
  return ok ? { kind: 'advanced', called: true } : { kind: 'stop' };
}

function caseInputText(input: TestCase['input']): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string') return input;
  const message = (input as Record<string, unknown>).user_message;
  return typeof message === 'string' ? message : JSON.stringify(input);
}

async function conversationStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): Promise<StepOutcome> {
  const tc = ctx.testCase;
  const index = s.turnCount + 1;
  const multi = isMultiTurn(ctx);
  const maxTurns = multi ? (tc?.maxIterations ?? DEFAULT_MAX_ITERATIONS) : 1;
  const turns = multi ? await listTurns(s.id) : [];
  if (index > maxTurns)
    return endStep(s, { status: 'COMPLETED', stoppingReason: multi ? 'max_iterations' : 'completed', error: null });

  let message: string;
  let input: Record<string, unknown>;
  if (index === 1 && tc?.input !== null && tc?.input !== undefined && tc.input !== '') {
    message = caseInputText(tc.input);
    input = typeof tc.input === 'string' ? { user_message: tc.input } : (tc.input as Record<string, unknown>);
  } else if (!multi) {
    return endStep(s, {
      status: 'FAILED',
      stoppingReason: null,
      error: `CONVERSATION failed: test case ${tc?.id ?? '(deleted)'} has no input`,
    });
  } else if (s._userMessage && s._userMessage.seq === s._seq) {
    message = s._userMessage.message;
    input = { user_message: message };
  } else {
    const sim = await simulateUserTurn({
      organizationId: s.organizationId,
      persona: tc?.userPersona ?? ctx.test?.customUserPersona ?? undefined,
      goal: tc?.goal ?? undefined,
      scenario: tc?.scenario ?? undefined,
      stoppingCriterias: tc?.stoppingCriterias ?? [],
      languageCode: tc?.languageCode ?? ctx.test?.languageCode,
      conversation: turns.map((t) => ({ input: t.input, output: t.output ?? '' })),
      opening: index === 1,
    });
    if (!sim.ok)
      return endStep(s, {
        status: 'FAILED',
        stoppingReason: null,
        error: `SIMULATED_USER failed before turn ${index}: ${sim.error}`,
      });
    if (sim.stop && index > 1)
      return endStep(s, { status: 'COMPLETED', stoppingReason: sim.reason || 'simulator_stopped', error: null });
    message = sim.message;
    input = { user_message: message };
    if (!(await applyStep([sessionStepUpdate(s.id, s._seq, { _userMessage: { seq: s._seq, message } })])))
      return { kind: 'stop' };
  }

  const conn = ctx.conversation!;
  const turnId = newId('inferenceResult');
  const vars = variablesOf(ctx, s, {
    input,
    inference_result_id: turnId,
    past_turns: turns.map((t) => ({ input: t.input, output: t.output })),
  });
  const result = await callAgent(conn, vars, callOptions(conn, jctx, attemptsSoFar));
  if (result.kind === 'requeue') return { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };
  if (result.kind === 'failed')
    return endStep(s, {
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
    createdAt: now,
  };
  const { set, items } = sessionAdditions(s, result, false);
  let end: RunSession['_end'];
  if (!multi) end = { status: 'COMPLETED', stoppingReason: 'completed', error: null };
  else if (output.trim() === '') end = { status: 'COMPLETED', stoppingReason: 'agent_empty_response', error: null };
  else if (index >= maxTurns) end = { status: 'COMPLETED', stoppingReason: 'max_iterations', error: null };
  const ok = await applyStep([
    sessionStepUpdate(
      s.id,
      s._seq,
      { ...set, _seq: s._seq + 1, turnCount: index, lastTurnAt: now, ...(end ? { _end: end } : {}) },
      { remove: ['_userMessage'] },
    ),
    turnPut(turn),
    ...items,
  ]);
  if (!ok) return { kind: 'stop' };
  await recordSpans(ctx, turn, result);
  return { kind: 'advanced', called: true };
}

const SPAN_TYPE_SET = new Set<string>(SPAN_TYPES);
const isDate = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The turn's spans: a RETRIEVER span for `retrieval_context`, and one span
 * per object of `traces`. Ids derive from the turn, so a second attempt finds them (409) and adds
 * nothing; a trace the span schema refuses is left out and logged, it never fails the turn.
 */
async function recordSpans(ctx: StepContext, turn: Turn, result: Extract<CallResult, { kind: 'ok' }>): Promise<void> {
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
  if (spans.length === 0) return;
  const auth: AuthContext = {
    organizationId: turn.organizationId,
    userId: ctx.run.userId,
    role: 'MEMBER',
    plan: 'FREE',
    keyId: `run:${ctx.run.id}`,
  };
  try {
    await createSpanBatch(auth, { spans });
  } catch (error) {
    if (error instanceof ConflictError || error instanceof ValidationError) {
      logger.warn('run turn spans not recorded', { runId: ctx.run.id, turnId: turn.id, error: error.message });
      return;
    }
    throw error;
  }
}

// ---------------------------------------------------------------- end of a session

/**
 * Ends a session and scores it: the session takes its final status and its evaluations are
 * written (one transaction), each is run through the evaluation path (credits included), and
 * then, once, the run's counters move and take the outcomes. A redelivery resumes where it stopped.
 */
async function finishSession(ctx: StepContext, s: RunSession): Promise<StepOutcome> {
  let session: RunSession | undefined = s;
  if (session._phase !== 'EVALUATING') {
    const end = session._end ?? { status: 'COMPLETED' as const, stoppingReason: 'completed', error: null };
    const evaluations =
      end.stoppingReason === CANCELLED_REASON ? [] : await plannedEvaluations(ctx, session, end.status);
    session = await closeSession(session, end, evaluations);
    if (!session) return { kind: 'stop' };
  }
  // runEvaluation scores a PENDING evaluation and returns a settled one as it is.
  const id = session.id;
  await countSession(session, ctx.run.id, (evaluationId) => runEvaluation(id, evaluationId));
  return { kind: 'stop' };
}

type SessionEnd = NonNullable<RunSession['_end']>;

/** The session takes its final status and its evaluations are written (one transaction); undefined when another delivery did it. */
async function closeSession(
  session: RunSession,
  end: SessionEnd,
  evaluations: Evaluation[],
): Promise<RunSession | undefined> {
  const now = clock.now().toISOString();
  const items: TransactItem[] = [
    sessionStepUpdate(session.id, session._seq, {
      status: end.status,
      stoppingReason: end.stoppingReason,
      error: end.error,
      closedAt: now,
      _phase: 'EVALUATING',
      _evaluationIds: evaluations.map((e) => e.id),
      _seq: session._seq + 1,
    }),
    ...evaluations.map((e) => ({
      Put: { TableName: tableName, Item: evaluationItem(e), ConditionExpression: 'attribute_not_exists(pk)' },
    })),
    ...(evaluations.length ? testActivityUpdate(session, '_hasEvaluations') : []),
  ];
  if (!(await applyStep(items))) return undefined;
  return {
    ...session,
    status: end.status,
    _phase: 'EVALUATING',
    _evaluationIds: evaluations.map((e) => e.id),
    _seq: session._seq + 1,
  };
}

/**
 * Settles each of the session's evaluations with `settle` (scores it, or reads it), then, once,
 * moves the run's counters with the outcomes and finishes the run when this session was its last.
 */
async function countSession(
  session: RunSession,
  runId: string,
  settle: (evaluationId: string) => Promise<Evaluation | undefined>,
): Promise<void> {
  const outcomes: { metricId: string; status: 'SUCCESS' | 'FAILED' | 'SKIPPED'; score?: number }[] = [];
  for (const id of session._evaluationIds ?? []) {
    const evaluation = await settle(id);
    if (!evaluation) continue;
    if (evaluation.status === 'SUCCESS' || evaluation.status === 'FAILED' || evaluation.status === 'SKIPPED') {
      outcomes.push({
        metricId: evaluation.metricId,
        status: evaluation.status,
        ...(evaluation.score !== null ? { score: evaluation.score } : {}),
      });
    }
  }
  const counted = await applyStep([
    sessionStepUpdate(session.id, session._seq, { _phase: 'DONE' }, { anyStatus: true, phase: 'EVALUATING' }),
    runCountersUpdate(
      session.organizationId,
      runId,
      session.status === 'COMPLETED' ? { running: -1, completed: 1 } : { running: -1, failed: 1 },
      outcomes,
    ),
  ]);
  if (counted) {
    countMetric(session.status === 'COMPLETED' ? METRIC.RunSessionsCompleted : METRIC.RunSessionsFailed);
    const scored = outcomes.length;
    logger.debug('run session counted', { runId, sessionId: session.id, status: session.status, scored });
    const status = await finishRun(session.organizationId, runId, clock.now().toISOString());
    if (status) logger.info('run finished', { runId, status });
  }
}

/** The evaluations a finished session gets: per turn for single-turn tests, per session for SCENARIOS. */
async function plannedEvaluations(
  ctx: StepContext,
  s: RunSession,
  status: 'COMPLETED' | 'FAILED',
): Promise<Evaluation[]> {
  const metricIds = ctx.entry?.metricIds ?? ctx.run.metricIds;
  if (metricIds.length === 0) return [];
  const src = await loadSources({ ...s, status });
  const multi = isMultiTurn(ctx);
  const targets: (string | null)[] = multi
    ? status === 'COMPLETED' && src.turns.length > 0
      ? [null]
      : []
    : src.turns.filter((t) => t.output !== null).map((t) => t.id);
  if (targets.length === 0) return [];
  const now = clock.now().toISOString();
  const metrics: StoredMetric[] = [];
  for (const id of metricIds) {
    const m = await getVisibleMetric(s.organizationId, id).catch(() => undefined);
    if (m) metrics.push(m);
  }
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
        out.push(
          missing.length
            ? { ...base, status: 'SKIPPED', error: `missing ${missing.join('; ')}`, evaluatedAt: now }
            : base,
        );
      }
    }
  }
  return out;
}
