import { restoreItems } from '../../../db/offload.js';
import { toRecord } from '../../../db/records.js';
import { writeCountedStep, writeStep, type Outcome, type RunRef } from '../../../db/run-steps.js';
import type { RunSession } from '../../../db/runs.js';
import { listTurns, spansOfSession } from '../../../db/sessions.js';
import { logger } from '../../../observability/logger.js';
import { countMetric, METRIC } from '../../../observability/metrics.js';
import type { Evaluation } from '../../../schemas/sessions.js';
import { clock } from '../../common/clock.js';
import { missingParams, type EvaluationSources } from '../../evaluation/context.js';
import { initialStatus, newEvaluation } from '../../evaluation/evaluations.js';
import { score, settledEvaluation } from '../../evaluation/evaluator.js';
import { isOutcome, outcomeOf } from './close.js';
import { isMultiTurn, needsSpans, type StepContext } from './context.js';
import type { Close, ClosingTurn } from './machine.js';
import type { Span, Turn } from '../../../schemas/sessions.js';

/**
 * The end of a session, the parts that read and write (the close itself is data: close.ts):
 * its evaluations planned (those of metrics scored in code scored at once), the close written,
 * its pending evaluations scored and the session counted. The `plan`, `close` and `count`
 * effects of the session's machine; the runner feeds what each yields back to `decide`.
 */

/**
 * The evaluations a closing session gets, planned: with the last turn when the close records it,
 * the turns this job knows, or read.
 */
export async function planClose(ctx: StepContext, s: RunSession, withTurn?: ClosingTurn): Promise<Evaluation[]> {
  const end = s._end ?? { status: 'COMPLETED' as const };
  const known = withTurn
    ? [...((isMultiTurn(ctx) ? ctx.turns : []) as Turn[]), withTurn.turn]
    : ctx.turns?.every((t) => 'id' in t)
      ? (ctx.turns as Turn[])
      : undefined;
  return plannedEvaluations(ctx, s, end.status, known);
}

/**
 * Writes a close (close.ts): 'closed' when it left the session scoring, 'counted' or 'last' when it
 * counted it too ('last': the last of its sealed shard), 'moved' when another delivery did it.
 */
export async function writeClose(close: Close): Promise<'moved' | 'closed' | 'counted' | 'last'> {
  if (!close.settled) return (await writeStep(close.change)) ? 'closed' : 'moved';
  const counted = await writeCountedStep(close.change);
  if (counted === 'moved') return 'moved';
  for (const e of close.evaluations) {
    if (e.status === 'SUCCESS' && e.evaluatedAt) countMetric(METRIC.EvaluationsSucceeded);
    if (e.status === 'FAILED') countMetric(METRIC.EvaluationsFailed);
  }
  countCounted(close.closed, close.change.run.runId, close.evaluations.filter(isOutcome).length);
  return counted;
}

function countCounted(session: RunSession, runId: string, scored: number): void {
  countMetric(session.status === 'COMPLETED' ? METRIC.RunSessionsCompleted : METRIC.RunSessionsFailed);
  logger.debug('run session counted', { runId, sessionId: session.id, status: session.status, scored });
}

/**
 * Settles each of the session's evaluations with `settle` (scores it, or reads it), then, once,
 * moves the run's counters with the outcomes: 'counted', 'last' (the last of its sealed shard: the
 * run may be done) or 'moved' (another delivery counted it).
 */
export async function countSession(
  session: RunSession,
  run: RunRef,
  planIndex: number | undefined,
  settle: (evaluationId: string) => Promise<Evaluation | undefined>,
): Promise<'moved' | 'counted' | 'last'> {
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
  if (counted !== 'moved') countCounted(session, run.runId, outcomes.length);
  return counted;
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
