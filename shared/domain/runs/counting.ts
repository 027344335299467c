import type { TransactItem } from '../../db/catalog.js';
import { shardOf, shardUpdate, type Outcome } from '../../db/run-counters.js';
import { applyStep, runCountersUpdate, tryStep, type RunSession } from '../../db/runs.js';
import { testActivityUpdate } from '../sessions/sessions.js';

/**
 * The writes that count a run's sessions, each one item of the transaction that moves the
 * session, so a session is counted exactly once however often its jobs run. A run with counter
 * shards counts on the shard its session hashes to (no hot item); a run created before shards
 * counts on its own item.
 */

export type { Outcome } from '../../db/run-counters.js';

/** The run a session counts on: its id, organization and shard count (absent: the run item). */
export interface RunRef {
  organizationId: string;
  runId: string;
  shards?: number | undefined;
  /** The run's threshold, when its sessions count their passes on the shards. */
  threshold?: number | undefined;
}

export const shardOfSession = (run: RunRef, sessionId: string): number | undefined =>
  run.shards ? shardOf(sessionId, run.shards) : undefined;

/** Spans a write records for its session's plan entry (the run marks those tests as traced when it ends). */
export type Traces = { planIndex: number | undefined; count: number };

const tracesOption = (traces: Traces | undefined) =>
  traces && traces.planIndex !== undefined && traces.count > 0
    ? { traces: { planIndex: traces.planIndex, count: traces.count } }
    : {};

/** A session leaves pending for running (with its first write, and the spans that write records). */
export function startCount(run: RunRef, sessionId: string, traces?: Traces): TransactItem {
  const shard = shardOfSession(run, sessionId);
  if (shard === undefined) return runCountersUpdate(run.organizationId, run.runId, { pending: -1, running: 1 });
  return shardUpdate(run.runId, shard, { started: 1 }, [], tracesOption(traces));
}

/**
 * A session is counted, from pending (it never started) or running, with its evaluations'
 * outcomes and how many it wrote for its plan entry (the run marks those tests when it ends).
 * `unlessLast`: the write is refused when the session is the last of its sealed shard (see
 * `countedWrite`).
 */
export function doneCount(
  run: RunRef,
  session: Pick<RunSession, 'id' | 'status'>,
  from: 'pending' | 'running',
  outcomes: Outcome[] = [],
  evaluations?: { planIndex: number | undefined; count: number },
  options: { unlessLast?: boolean; traces?: Traces } = {},
): TransactItem {
  const to = session.status === 'COMPLETED' ? 'completed' : 'failed';
  const shard = shardOfSession(run, session.id);
  if (shard === undefined) return runCountersUpdate(run.organizationId, run.runId, { [from]: -1, [to]: 1 }, outcomes);
  const written =
    evaluations && evaluations.planIndex !== undefined && evaluations.count > 0
      ? { evaluations: { planIndex: evaluations.planIndex, count: evaluations.count } }
      : {};
  return shardUpdate(run.runId, shard, { ...(from === 'pending' ? { started: 1 } : {}), [to]: 1 }, outcomes, {
    ...written,
    ...tracesOption(options.traces),
    ...(options.unlessLast ? { unlessLast: true } : {}),
    ...(run.threshold !== undefined ? { threshold: run.threshold } : {}),
  });
}

/**
 * Runs the transaction that counts a session, built by `itemsFor` (its session's write first, and
 * its `doneCount(…, { unlessLast })`): 'moved' when its session moved on (another delivery), else
 * 'counted', or 'last' when the session was the last of its sealed shard: then it is written again
 * without that condition, and the run may be done (the caller looks). So only a shard's last
 * session reads the run, and no other session reads anything after it is counted.
 */
export async function countedWrite(
  itemsFor: (unlessLast: boolean) => TransactItem[],
): Promise<'moved' | 'counted' | 'last'> {
  const codes = await tryStep(itemsFor(true));
  if (!codes) return 'counted';
  if (codes[0] === 'ConditionalCheckFailed') return 'moved';
  return (await applyStep(itemsFor(false))) ? 'last' : 'moved';
}

/**
 * What a run's turn writes with its spans: a count on its shard (the run marks its test as traced
 * once, when it ends), or, for a run without shards, the test's flag itself.
 */
export function spansCount(run: RunRef, session: RunSession, traces: Traces): TransactItem[] {
  if (traces.count === 0) return [];
  const shard = shardOfSession(run, session.id);
  if (shard === undefined || traces.planIndex === undefined) return testActivityUpdate(session, '_hasTraces');
  return [shardUpdate(run.runId, shard, {}, [], tracesOption(traces))];
}

/** Sessions that never started, failed together (a cancelled run): one write per shard they hash to. */
export function failedUnstarted(run: RunRef, sessionIds: string[]): TransactItem[] {
  if (sessionIds.length === 0) return [];
  if (!run.shards)
    return [
      runCountersUpdate(run.organizationId, run.runId, { pending: -sessionIds.length, failed: sessionIds.length }),
    ];
  const perShard = new Map<number, number>();
  for (const id of sessionIds) {
    const k = shardOf(id, run.shards);
    perShard.set(k, (perShard.get(k) ?? 0) + 1);
  }
  return [...perShard].map(([k, n]) => shardUpdate(run.runId, k, { started: n, failed: n }));
}
