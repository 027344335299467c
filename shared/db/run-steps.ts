import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Evaluation } from '../schemas/sessions.js';
import { transact, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { readShard, shardOf, shardUpdate, type Outcome } from './run-counters.js';
import { getStoredRun, Refused, runCountersUpdate, type RunSession, type RunSessionState } from './runs.js';
import { customIdItem, evaluationItem, turnItem } from './sessions.js';
import type { Turn } from '../schemas/sessions.js';

/**
 * The writes of a run session's steps, taken as intents: "move session s on from step k, with
 * this turn, these evaluations, and count it so". Every item, key and condition of them is built
 * here; the run engine names none. Each write holds only while the session is at its step, so a
 * redelivered or stale job changes nothing; the counters move in the transaction that moves the
 * session, so a session is counted exactly once however often its jobs run.
 */

export type { Outcome } from './run-counters.js';

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

/** How a step moves its session on the run's counters. */
export type CountMove =
  /** The session leaves pending for running (its first write), with the spans that write records. */
  | { kind: 'start'; traces?: Traces }
  /** The session is counted, from pending (it never started) or running, with its evaluations' outcomes. */
  | {
      kind: 'done';
      status: 'COMPLETED' | 'FAILED';
      from: 'pending' | 'running';
      outcomes?: Outcome[];
      evaluations?: { planIndex: number | undefined; count: number };
      traces?: Traces;
    }
  /** The spans a turn records. */
  | { kind: 'spans'; traces: Traces };

/** One step's write: the session's change and whatever goes with it, in one transaction. */
export interface StepChange {
  run: RunRef;
  session: Pick<RunSession, 'id' | 'organizationId' | 'testId'>;
  /** The step the session must still be at. */
  seq: number;
  set: Record<string, unknown>;
  remove?: string[];
  /** The phase the session must still be in. */
  phase?: RunSessionState['_phase'];
  /** Held whatever the session's status (a scored session's count); else only while PENDING. */
  anyStatus?: boolean;
  /** A PHONE step: written only if no delivery of this step wrote its call yet. */
  firstCall?: boolean;
  /** The turn recorded with the step (its index is a conditional put). */
  turn?: Turn;
  /** The agent's session id, which becomes the session's customId. */
  customId?: string;
  /** Evaluations written with the close (each a conditional put). */
  evaluations?: Evaluation[];
  counts?: CountMove[];
}

/** The items of a step's write; the session's own update first (its refusal means "moved on"). */
export function stepItems(change: StepChange, unlessLast = false): TransactItem[] {
  const { run, session } = change;
  return [
    sessionStepUpdate(session.id, change.seq, change.set, change),
    ...(change.turn ? [putNew(turnItem(change.turn))] : []),
    ...(change.customId
      ? [{ Put: { TableName: tableName, Item: customIdItem(session.organizationId, change.customId, session.id) } }]
      : []),
    ...(change.evaluations ?? []).map((e) => putNew(evaluationItem(e))),
    ...(change.counts ?? []).flatMap((move) => countItems(run, session, move, unlessLast)),
  ];
}

/** Writes a step; false when the session moved on (another delivery did the step, or the run was cancelled). */
export async function writeStep(change: StepChange): Promise<boolean> {
  return applyStep(stepItems(change));
}

/**
 * Writes a step that counts its session: 'moved' when the session moved on (another delivery),
 * else 'counted', or 'last' when the session was the last of its sealed shard: then it is written
 * again without that condition, and the run may be done (the caller looks). So only a shard's last
 * session reads the run, and no other session reads anything after it is counted.
 */
export async function writeCountedStep(change: StepChange): Promise<'moved' | 'counted' | 'last'> {
  const codes = await tryStep(stepItems(change, true));
  if (!codes) return 'counted';
  if (codes[0] === 'ConditionalCheckFailed') return 'moved';
  return (await applyStep(stepItems(change))) ? 'last' : 'moved';
}

/** What a write records for its session on the counters (also the spans' own transaction). */
export function countItems(
  run: RunRef,
  session: Pick<RunSession, 'id' | 'organizationId' | 'testId'>,
  move: CountMove,
  unlessLast = false,
): TransactItem[] {
  const shard = shardOfSession(run, session.id);
  if (move.kind === 'start') {
    if (shard === undefined) return [runCountersUpdate(run.organizationId, run.runId, { pending: -1, running: 1 })];
    return [shardUpdate(run.runId, shard, { started: 1 }, [], tracesOption(move.traces))];
  }
  if (move.kind === 'spans') {
    if (move.traces.count === 0) return [];
    if (shard === undefined || move.traces.planIndex === undefined) return testFlag(session, '_hasTraces');
    return [shardUpdate(run.runId, shard, {}, [], tracesOption(move.traces))];
  }
  const to = move.status === 'COMPLETED' ? 'completed' : 'failed';
  const outcomes = move.outcomes ?? [];
  if (shard === undefined)
    return [runCountersUpdate(run.organizationId, run.runId, { [move.from]: -1, [to]: 1 }, outcomes)];
  const evaluations = move.evaluations;
  const written =
    evaluations && evaluations.planIndex !== undefined && evaluations.count > 0
      ? { evaluations: { planIndex: evaluations.planIndex, count: evaluations.count } }
      : {};
  return [
    shardUpdate(run.runId, shard, { ...(move.from === 'pending' ? { started: 1 } : {}), [to]: 1 }, outcomes, {
      ...written,
      ...tracesOption(move.traces),
      ...(unlessLast ? { unlessLast: true } : {}),
      ...(run.threshold !== undefined ? { threshold: run.threshold } : {}),
    }),
  ];
}

const tracesOption = (traces: Traces | undefined) =>
  traces && traces.planIndex !== undefined && traces.count > 0
    ? { traces: { planIndex: traces.planIndex, count: traces.count } }
    : {};

/** A run without shards marks its test as traced with the turn itself. */
function testFlag(session: Pick<RunSession, 'organizationId' | 'testId'>, flag: '_hasTraces'): TransactItem[] {
  if (!session.testId) return [];
  return [
    {
      Update: {
        TableName: tableName,
        Key: keys.catalog(session.organizationId, 'TEST', session.testId),
        UpdateExpression: 'SET #f = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#f': flag },
        ExpressionAttributeValues: { ':t': true },
      },
    },
  ];
}

/** Sessions that never started, failed together (a cancelled run's fan-out): one write per shard they hash to. */
export function failedUnstartedItems(run: RunRef, sessionIds: string[]): TransactItem[] {
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

/**
 * Fails a group of sessions (each at the step and phase it was read in) and counts them, in one
 * transaction: undefined when written, else the reason of each item (the first `sessions.length`
 * are the sessions', in order).
 */
export async function failSessions(
  run: RunRef,
  sessions: RunSession[],
  set: Record<string, unknown>,
): Promise<string[] | undefined> {
  return tryStep([
    ...sessions.map((s) => sessionStepUpdate(s.id, s._seq, set, { phase: s._phase })),
    ...failedCounts(run, sessions),
  ]);
}

/** The counters of a group of failed sessions: one write per shard (or the run item). */
function failedCounts(run: RunRef, sessions: RunSession[]): TransactItem[] {
  const queued = (s: RunSession) => s._phase === 'QUEUED';
  if (!run.shards) {
    const q = sessions.filter(queued).length;
    return [
      runCountersUpdate(run.organizationId, run.runId, {
        pending: -q,
        running: -(sessions.length - q),
        failed: sessions.length,
      }),
    ];
  }
  const perShard = new Map<number, { started: number; failed: number }>();
  for (const s of sessions) {
    const k = shardOf(s.id, run.shards);
    const c = perShard.get(k) ?? { started: 0, failed: 0 };
    c.failed++;
    if (queued(s)) c.started++;
    perShard.set(k, c);
  }
  return [...perShard].map(([k, c]) => shardUpdate(run.runId, k, c));
}

/** Whether the run was cancelled: its session's shard says (a run without shards: its item). */
export async function runCancelled(run: RunRef, sessionId: string): Promise<boolean> {
  const shard = shardOfSession(run, sessionId);
  return shard !== undefined
    ? (await readShard(run.runId, shard)).cancelled
    : (await getStoredRun(run.organizationId, run.runId)).status === 'CANCELLED';
}

/** Marks that the job of step `seq` is on the queue (so a redelivery knows it need not enqueue it). */
export async function markQueued(sessionId: string, seq: number): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.session(sessionId),
        UpdateExpression: 'SET #q = :seq',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#q) OR #q < :seq)',
        ExpressionAttributeNames: { '#q': '_queued' },
        ExpressionAttributeValues: { ':seq': seq },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/** Sets a session's `recordingUri` (a voice call's recording, known once the call ended), whatever its state. */
export async function setSessionRecording(sessionId: string, uri: string): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.session(sessionId),
        UpdateExpression: 'SET recordingUri = :uri',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':uri': uri },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

const putNew = (item: Record<string, unknown>): TransactItem => ({
  Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
});

/**
 * An update of a run session that holds only while it is at step `seq` and still PENDING: every
 * write of the execution goes through it, so a redelivered or stale job changes nothing.
 */
function sessionStepUpdate(
  sessionId: string,
  seq: number,
  set: Record<string, unknown>,
  options: Pick<StepChange, 'anyStatus' | 'remove' | 'phase' | 'firstCall'> = {},
): TransactItem {
  const names: Record<string, string> = { '#seq': '_seq', '#status': 'status' };
  if (options.firstCall) {
    names['#call'] = '_call';
    names['#callSeq'] = 'seq';
  }
  const values: Record<string, unknown> = { ':seq': seq, ...(options.anyStatus ? {} : { ':pending': 'PENDING' }) };
  if (options.anyStatus) delete names['#status'];
  if (options.phase) {
    names['#phase'] = '_phase';
    values[':phase'] = options.phase;
  }
  const sets = Object.entries(set).map(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    return `#f${i} = :f${i}`;
  });
  const removes = (options.remove ?? []).map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  return {
    Update: {
      TableName: tableName,
      Key: keys.session(sessionId),
      UpdateExpression: [
        sets.length ? `SET ${sets.join(', ')}` : '',
        removes.length ? `REMOVE ${removes.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' '),
      ConditionExpression: [
        options.anyStatus ? '#seq = :seq' : '#seq = :seq AND #status = :pending',
        options.phase ? '#phase = :phase' : '',
        options.firstCall ? '(attribute_not_exists(#call) OR #call.#callSeq <> :seq)' : '',
      ]
        .filter(Boolean)
        .join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** Runs a step's transaction; false when the session moved on. */
async function applyStep(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items, (codes) => (codes[0] === 'ConditionalCheckFailed' ? new StepTaken() : undefined));
    return true;
  } catch (error) {
    if (error instanceof StepTaken) return false;
    throw error;
  }
}
class StepTaken extends Error {}

/** Runs a step's transaction; undefined when it was written, else the reason of each item. */
async function tryStep(items: TransactItem[]): Promise<string[] | undefined> {
  try {
    await transact(items, (codes) => (codes.includes('ConditionalCheckFailed') ? new Refused(codes) : undefined));
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return error.codes;
    throw error;
  }
}
