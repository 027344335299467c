import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  createRecord,
  itemFor,
  listOrgRecords,
  listProductRecords,
  throwMissing,
  transact,
  updateIf,
  type TransactItem,
} from './catalog.js';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { batchGet, queryAll } from './query.js';
import { toRecord } from './records.js';
import { sessionItem, turnItem } from './sessions.js';
import { testVersionMark } from './tests.js';
import type { Run, RunProgress, RunStatus } from '../schemas/runs.js';
import type { Session, Turn } from '../schemas/sessions.js';
import type { TestCase } from '../schemas/tests.js';
import type { CatalogEntity } from './catalog.js';

export const runEntity: CatalogEntity = { type: 'RUN', label: 'run', byProduct: true };

/** One test of a run and what scores it. */
export interface RunPlanEntry {
  testId: string;
  testType: string;
  specificationId: string | null;
  metricIds: string[];
  /** Only these cases (POST /runs with testCaseIds); all the test's cases when absent. */
  testCaseIds?: string[];
  caseCount: number;
}

/** Additive outcome counts of one metric over a run's evaluations. */
export interface MetricStat {
  n: number;
  sx: number;
  sxx: number;
  failed: number;
  skipped: number;
}

/** The stored run: the record plus what execution needs (internal `_` fields never leave the service). */
export type StoredRun = Omit<Run, 'metrics'> & {
  _plan: RunPlanEntry[];
  _stats: Record<string, MetricStat>;
  _metricNames: Record<string, string>;
};

export async function createRun(run: StoredRun): Promise<StoredRun> {
  await createRecord(runEntity, run, [], itemFor(runEntity, run));
  return run;
}

/** A run of the organization with its internal fields; 403 another organization's, 404 none. */
export async function getStoredRun(orgId: string, id: string): Promise<StoredRun> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.catalog(orgId, 'RUN', id), ConsistentRead: true }),
  );
  if (!out.Item) return throwMissing(runEntity, orgId, id);
  return toRecord<StoredRun>(out.Item, { keepInternal: true });
}

export async function listStoredRuns(orgId: string, productIds?: string[]): Promise<StoredRun[]> {
  return productIds
    ? listProductRecords<StoredRun>(runEntity, orgId, productIds, { keepInternal: true })
    : listOrgRecords<StoredRun>(runEntity, orgId, { keepInternal: true });
}

/**
 * Sets fields of a run while its status is one of `from`, together with `items` (an event the
 * change causes) in one transaction; false when the run's status no longer is one of `from`.
 */
export async function setRunStatus(
  orgId: string,
  id: string,
  from: RunStatus[],
  set: Partial<Run>,
  extra?: { condition: string; values: Record<string, unknown> },
  items: TransactItem[] = [],
): Promise<boolean> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ...(extra?.values ?? {}) };
  const sets = Object.entries(set).map(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    return `#f${i} = :f${i}`;
  });
  const froms = from.map((s, i) => {
    values[`:from${i}`] = s;
    return `:from${i}`;
  });
  const update = {
    TableName: tableName,
    Key: keys.catalog(orgId, 'RUN', id),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: `#status IN (${froms.join(', ')})${extra ? ` AND ${extra.condition}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  return updateIf(update, items);
}

/**
 * Finishes a run once every session is done (COMPLETED when at least one completed, else FAILED),
 * with the items `onFinish` gives for that outcome (its event) in the same transaction, so the
 * event is written exactly when the run finishes.
 */
export async function finishRunWhenDone(
  orgId: string,
  id: string,
  at: string,
  onFinish?: (run: StoredRun, status: RunStatus) => Promise<TransactItem[]>,
): Promise<RunStatus | undefined> {
  const run = await getStoredRun(orgId, id);
  if (run.status !== 'RUNNING' && run.status !== 'PENDING') return undefined;
  if (run.progress.pending > 0 || run.progress.running > 0) return undefined;
  const status: RunStatus = run.progress.completed > 0 ? 'COMPLETED' : 'FAILED';
  const set = { status, finishedAt: at, ...(run.startedAt ? {} : { startedAt: at }) };
  const items = onFinish ? await onFinish({ ...run, ...set }, status) : [];
  const done = await setRunStatus(
    orgId,
    id,
    ['PENDING', 'RUNNING'],
    set,
    {
      condition: 'progress.pending = :zero AND progress.running = :zero',
      values: { ':zero': 0 },
    },
    items,
  );
  return done ? status : undefined;
}

// ---------- progress and metric counters ----------

/** Moves one session between progress counters (and adds metric outcomes) on the run item. */
export function runCountersUpdate(
  orgId: string,
  runId: string,
  moves: Partial<Record<keyof Omit<RunProgress, 'total'>, number>>,
  outcomes: { metricId: string; status: 'SUCCESS' | 'FAILED' | 'SKIPPED'; score?: number }[] = [],
): TransactItem {
  const names: Record<string, string> = { '#p': 'progress', ...(outcomes.length ? { '#st': '_stats' } : {}) };
  const values: Record<string, unknown> = {};
  const parts: string[] = [];
  for (const [field, delta] of Object.entries(moves)) {
    if (!delta) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = delta;
    parts.push(`#p.#${field} = #p.#${field} + :${field}`);
  }
  outcomes.forEach((o, i) => {
    names[`#m${i}`] = o.metricId;
    const add = (field: string, value: number) => {
      names[`#${field}`] = field;
      values[`:m${i}${field}`] = value;
      parts.push(`#st.#m${i}.#${field} = #st.#m${i}.#${field} + :m${i}${field}`);
    };
    if (o.status === 'SUCCESS') {
      add('n', 1);
      add('sx', o.score ?? 0);
      add('sxx', (o.score ?? 0) ** 2);
    } else if (o.status === 'FAILED') add('failed', 1);
    else add('skipped', 1);
  });
  return {
    Update: {
      TableName: tableName,
      Key: keys.catalog(orgId, 'RUN', runId),
      UpdateExpression: `SET ${parts.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    },
  };
}

// ---------- a run's sessions ----------

/** Internal execution state kept on a run's session item (never returned by reads). */
export interface RunSessionState {
  /** Steps completed so far (INITIALIZATION, each turn, FINALIZATION): a job names the step it performs. */
  _seq: number;
  /** Highest step whose job was put on the queue after it was recorded. */
  _queued: number;
  /** QUEUED (no step started), RUNNING, EVALUATING (ended, scoring), DONE (counted). */
  _phase: 'QUEUED' | 'RUNNING' | 'EVALUATING' | 'DONE';
  _runId: string;
  _initDone?: boolean;
  _finalDone?: boolean;
  /** Set when the conversation is over: why, and whether it failed. */
  _end?: { status: 'COMPLETED' | 'FAILED'; stoppingReason: string | null; error: string | null };
  /** The simulated user's message for the step in flight, so a redelivery does not ask again. */
  _userMessage?: { seq: number; message: string };
  _evaluationIds?: string[];
}

export type RunSession = Session & { runId: string } & RunSessionState;

export function runSessionItems(session: RunSession): TransactItem[] {
  return [
    { Put: { TableName: tableName, Item: sessionItem(session), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.runSession(session.runId, session.createdAt, session.id),
          entity: 'RUNSESSION',
          sessionId: session.id,
        },
      },
    },
  ];
}

/** Creates a run's session and its index item; false when the session already exists (a redelivered fan-out). */
export async function createRunSession(session: RunSession, extra: TransactItem[] = []): Promise<boolean> {
  try {
    await transact([...runSessionItems(session), ...extra], (codes) =>
      codes[0] === 'ConditionalCheckFailed' ? new AlreadyExists() : undefined,
    );
    return true;
  } catch (error) {
    if (error instanceof AlreadyExists) return false;
    throw error;
  }
}
class AlreadyExists extends Error {}

export async function getRunSession(sessionId: string): Promise<RunSession | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.session(sessionId), ConsistentRead: true }),
  );
  return out.Item ? toRecord<RunSession>(out.Item, { keepInternal: true }) : undefined;
}

/** The ids of a run's sessions, oldest first. */
export async function runSessionIds(runId: string): Promise<string[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.runSessionPartition(runId) },
    ConsistentRead: true,
  });
  return items.map((i) => String(i.sessionId));
}

/** A run's sessions (with their internal state), oldest first. */
export async function runSessions(runId: string): Promise<RunSession[]> {
  const ids = await runSessionIds(runId);
  const items = await batchGet(
    ids.map((id) => keys.session(id)),
    true,
  );
  const byId = new Map(items.map((i) => [String(i.id), toRecord<RunSession>(i, { keepInternal: true })]));
  return ids.map((id) => byId.get(id)).filter((s): s is RunSession => Boolean(s));
}

/** A run's sessions as clients see them (internal state dropped), oldest first. */
export async function sessionsOfRun(runId: string): Promise<Session[]> {
  const ids = await runSessionIds(runId);
  const items = await batchGet(ids.map((id) => keys.session(id)));
  return items.map((i) => toRecord<Session>(i));
}

/**
 * An update of a run session that holds only while it is at step `seq` and still PENDING: every
 * write of the execution goes through it, so a redelivered or stale job changes nothing.
 */
export function sessionStepUpdate(
  sessionId: string,
  seq: number,
  set: Record<string, unknown>,
  options: { anyStatus?: boolean; remove?: string[]; phase?: RunSessionState['_phase'] } = {},
): TransactItem {
  const names: Record<string, string> = { '#seq': '_seq', '#status': 'status' };
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
      ]
        .filter(Boolean)
        .join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** Runs a step's transaction; false when the session moved on (another delivery did the step, or the run was cancelled). */
export async function applyStep(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items, (codes) => (codes[0] === 'ConditionalCheckFailed' ? new StepTaken() : undefined));
    return true;
  } catch (error) {
    if (error instanceof StepTaken) return false;
    throw error;
  }
}
class StepTaken extends Error {}

/** Records the session's turn together with its step: the turn index is a conditional put. */
export function turnPut(turn: Turn): TransactItem {
  return { Put: { TableName: tableName, Item: turnItem(turn), ConditionExpression: 'attribute_not_exists(pk)' } };
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

// ---------- what a run reads ----------

/** One page of a test's cases in file order (gsi1), for the fan-out. */
export async function testCasePage(
  testId: string,
  limit: number,
  startKey?: Record<string, unknown>,
): Promise<{ cases: TestCase[]; next?: Record<string, unknown> }> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.byTestPartition(testId) },
      Limit: limit,
      ExclusiveStartKey: startKey,
    }),
  );
  return {
    cases: (out.Items ?? []).map((i) => toRecord<TestCase>(i)).filter((c) => !c.deletedAt),
    next: out.LastEvaluatedKey,
  };
}

/** Test cases by id (the caller's organization), in the order asked; missing ones are left out. */
export async function testCasesById(orgId: string, ids: string[]): Promise<TestCase[]> {
  const items = await batchGet(
    ids.map((id) => keys.catalog(orgId, 'TCASE', id)),
    true,
  );
  const byId = new Map(items.map((i) => [String(i.id), toRecord<TestCase>(i)]));
  return ids.map((id) => byId.get(id)).filter((c): c is TestCase => Boolean(c) && !c!.deletedAt);
}

/** Keeps GET /tests?versionIds= answerable from the test record (as POST /sessions does). */
export async function markTestRunOnVersion(orgId: string, testId: string, versionId: string): Promise<void> {
  try {
    await doc.send(new UpdateCommand(testVersionMark(orgId, testId, versionId)));
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * Once, at the end of the fan-out: `missing` counted cases got no session (deleted since the run
 * was created), so they leave `total` and `pending`, and the counters stay exact.
 */
export async function reconcileFanout(orgId: string, runId: string, missing: number): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.catalog(orgId, 'RUN', runId),
        UpdateExpression: 'SET #done = :t, #p.#total = #p.#total - :d, #p.#pending = #p.#pending - :d',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#done)',
        ExpressionAttributeNames: {
          '#done': '_fanoutDone',
          '#p': 'progress',
          '#total': 'total',
          '#pending': 'pending',
        },
        ExpressionAttributeValues: { ':t': true, ':d': Math.max(0, missing) },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
