import type { CountMove, Outcome, RunRef, StepChange } from '../../../db/run-steps.js';
import type { RunSession } from '../../../db/runs.js';
import type { Evaluation } from '../../../schemas/sessions.js';
import type { Close, ClosingTurn, SessionEnd } from './machine.js';

/**
 * A session's close as data (pure): the session takes its final status and its evaluations in one
 * write, with the last turn when the close carries it. When nothing is left to score (every
 * evaluation settled in code, or none), the same write counts the session on its run (phase DONE);
 * else the session is EVALUATING until its evaluations are scored and it is counted.
 */
export function closeOf(
  session: RunSession,
  end: SessionEnd,
  evaluations: Evaluation[],
  options: { run: RunRef; planIndex: number | undefined; now: string; withTurn?: ClosingTurn | undefined },
): Close {
  const { now } = options;
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
  const traces = { planIndex: options.planIndex, count: options.withTurn?.spans.length ?? 0 };
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
  return { change, closed, settled, evaluations };
}

/** Whether a count may have finished the run: its session was the last of its sealed shard, or the run has no shards. */
export const runMayBeDone = (run: RunRef, counted: 'counted' | 'last'): boolean => !run.shards || counted === 'last';

export const isOutcome = (e: Evaluation): e is Evaluation & { status: Outcome['status'] } =>
  e.status === 'SUCCESS' || e.status === 'FAILED' || e.status === 'SKIPPED';

export const outcomeOf = (e: Evaluation & { status: Outcome['status'] }): Outcome => ({
  metricId: e.metricId,
  status: e.status,
  ...(e.score !== null ? { score: e.score } : {}),
});
