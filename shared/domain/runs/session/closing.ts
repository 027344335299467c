import { restoreItems } from '../../../db/offload.js';
import { toRecord } from '../../../db/records.js';
import {
  writeCountedStep,
  writeStep,
  type CountMove,
  type Outcome,
  type RunRef,
  type StepChange,
} from '../../../db/run-steps.js';
import type { RunSession } from '../../../db/runs.js';
import { listTurns, spansOfSession } from '../../../db/sessions.js';
import { logger } from '../../../observability/logger.js';
import { countMetric, METRIC } from '../../../observability/metrics.js';
import type { Evaluation } from '../../../schemas/sessions.js';
import { clock } from '../../common/clock.js';
import { missingParams, type EvaluationSources } from '../../evaluation/context.js';
import { initialStatus, newEvaluation } from '../../evaluation/evaluations.js';
import { runEvaluation, score, settledEvaluation } from '../../evaluation/evaluator.js';
import { finishRun } from '../run-finish.js';
import { isMultiTurn, needsSpans, type StepContext } from './context.js';
import { CANCELLED_REASON, type ClosingTurn, type SessionEnd } from './machine.js';
import type { Span, Turn } from '../../../schemas/records.js';

/**
 * The end of a session: it takes its final status and its evaluations (planned here, those scored
 * in code settled at once) in one transaction, is scored, and is counted on its run, which finishes
 * when this was its last session. The `evaluate` and `count` effects of the session's machine.
 */

/**
 * Ends a session and scores it: the session takes its final status and its evaluations are
 * written in one transaction. Evaluations scored in code (deterministic metrics) are written
 * settled and the session is counted in that same transaction; any other is run through the
 * evaluation path (credits included) and the session is counted after. A redelivery resumes
 * where it stopped.
 */
export async function finishSession(ctx: StepContext, s: RunSession, withTurn?: ClosingTurn): Promise<boolean> {
  const end = s._end ?? { status: 'COMPLETED' as const, stoppingReason: 'completed', error: null };
  const known = withTurn
    ? [...((isMultiTurn(ctx) ? ctx.turns : []) as Turn[]), withTurn.turn]
    : ctx.turns?.every((t) => 'id' in t)
      ? (ctx.turns as Turn[])
      : undefined;
  const evaluations =
    end.stoppingReason === CANCELLED_REASON ? [] : await plannedEvaluations(ctx, s, end.status, known);
  const planIndex = ctx.rec.carry.planIndex;
  const session = await writeClose(s, end, evaluations, { run: ctx.run, planIndex, ...(withTurn ? { withTurn } : {}) });
  if (!session) return false;
  // Counted already when it scored in code; runEvaluation scores a PENDING evaluation and returns a settled one as it is.
  if (session._phase !== 'DONE')
    await countSession(session, ctx.run, planIndex, (evaluationId) => runEvaluation(session.id, evaluationId));
  return true;
}

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
export async function writeClose(
  session: RunSession,
  end: SessionEnd,
  evaluations: Evaluation[],
  options: { run: RunRef; planIndex: number | undefined; withTurn?: ClosingTurn },
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
  const wt = options.withTurn?.change;
  // A session's first write may be its close (a single-turn case): it is counted from pending then.
  const unstarted = session._phase === 'QUEUED';
  const traces = { planIndex: options.planIndex, count: options.withTurn?.spans ?? 0 };
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
    ...(wt?.remove ? { remove: wt.remove } : {}),
    ...(wt?.turn ? { turn: wt.turn } : {}),
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
export async function countSession(
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
