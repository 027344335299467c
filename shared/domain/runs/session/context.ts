import { getRunSession, getStoredRun, type RunSession } from '../../../db/runs.js';
import { listTurns } from '../../../db/sessions.js';
import { NotFoundError } from '../../../errors.js';
import type { RunJob } from '../../../queue/run-queue.js';
import type { StoredMetric } from '../../../schemas/metrics.js';
import type { RunRef } from '../../../db/run-steps.js';
import { clock } from '../../common/clock.js';
import { bargeInSetting } from '../../voice/barge-in.js';
import { carryOfRun, readStep, type PastTurn, type StepRecords } from '../step-context.js';
import type { SessionFacts } from './machine.js';
import type { TestCase } from '../../../schemas/tests.js';
import type { Turn } from '../../../schemas/sessions.js';

/**
 * What a step job works with: the records its job carried (or it read), the run's cancellation,
 * the session's turns when it knows them; and the facts `decide` sees.
 */

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

export type StepJob = Extract<RunJob, { kind: 'step' }>;

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

/** The step's one read; undefined when the session is gone or belongs to another run. */
export async function loadStep(job: StepJob): Promise<{ session: RunSession; ctx: StepContext } | undefined> {
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

export function isMultiTurn(ctx: StepContext): boolean {
  return !SINGLE_TURN_TYPES.has(ctx.rec.test?.type ?? ctx.rec.carry.testType ?? 'QUALITY');
}

/** The session's turns, from memory when this job knows them all, else read. */
export async function turnsOf(ctx: StepContext, s: RunSession): Promise<PastTurn[]> {
  if (!ctx.turns || ctx.turns.length !== s.turnCount) ctx.turns = await listTurns(s.id);
  return ctx.turns;
}

const SPAN_PARAMS = new Set(['traces', 'tools_used']);
export const needsSpans = (metrics: StoredMetric[]) =>
  metrics.some((m) => m.evaluationParams.some((p) => SPAN_PARAMS.has(p)));

const timeToClose = (ctx: StepContext, jctx: JobContext) =>
  !jctx.remainingMs ||
  jctx.remainingMs() >=
    (ctx.rec.metrics.some((m) => m.source !== 'DETERMINISTIC' && m.source !== 'SELF_HOSTED')
      ? CLOSE_WITH_JUDGE_MS
      : CLOSE_IN_JOB_MS);

function caseInputText(input: TestCase['input']): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string') return input;
  const message = (input as Record<string, unknown>).user_message;
  return typeof message === 'string' ? message : JSON.stringify(input);
}

/** The session's barge-in as `decide` sees it: its length, or why its case's value cannot be used; nothing for none. */
function bargeInFacts(runAfterMs: number | undefined, tc: TestCase | undefined) {
  const setting = bargeInSetting(runAfterMs, tc);
  if ('error' in setting) return { bargeInError: setting.error };
  return setting.afterMs === null ? {} : { bargeInAfterMs: setting.afterMs };
}

/** The facts `decide` sees, as they are now (the time left, the cancellation learnt). */
export function factsOf(ctx: StepContext, s: RunSession, jctx: JobContext): SessionFacts {
  const tc = ctx.rec.testCase;
  const multi = isMultiTurn(ctx);
  const now = clock.now();
  const phone = ctx.rec.carry.phone;
  return {
    channel: s.channel === 'PHONE' ? 'PHONE' : 'HTTP',
    cancelled: ctx.cancelled,
    multi,
    maxTurns: multi ? (tc?.maxIterations ?? DEFAULT_MAX_ITERATIONS) : 1,
    ...(tc?.input !== null && tc?.input !== undefined && tc.input !== ''
      ? {
          caseInput: {
            message: caseInputText(tc.input),
            input: typeof tc.input === 'string' ? { user_message: tc.input } : (tc.input as Record<string, unknown>),
          },
        }
      : {}),
    testCaseId: tc?.id ?? null,
    conversation: Boolean(ctx.rec.conversation),
    initialization: Boolean(ctx.rec.initialization),
    finalization: Boolean(ctx.rec.finalization),
    ...(phone
      ? { phone: { agentSpeaksFirst: phone.agentSpeaksFirst, ...bargeInFacts(phone.bargeInAfterMs, tc) } }
      : {}),
    metricsNeedSpans: needsSpans(ctx.rec.metrics),
    closeNow: timeToClose(ctx, jctx),
    run: ctx.run,
    planIndex: ctx.rec.carry.planIndex,
    now: now.toISOString(),
    nowMs: now.getTime(),
  };
}
