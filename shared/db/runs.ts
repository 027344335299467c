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
import { keys, PLATFORM_ORG, type Key } from './keys.js';
import {
  readShards,
  RUN_SHARDS,
  shardKeys,
  shardOf,
  shardSeal,
  sumShards,
  type MetricStat,
  type ShardSums,
} from './run-counters.js';
import { batchGet, queryAll } from './query.js';
import { toRecord } from './records.js';
import { activeShardOf } from './stall-watch.js';
import { sessionItem, sessionRecord } from './sessions.js';
import { testVersionMark } from './tests.js';
import type { EndpointSecrets } from '../schemas/endpoint-connections.js';
import type { StoredMetric } from '../schemas/metrics.js';
import type { Product, Version } from '../schemas/products.js';
import type { Run, RunProgress, RunStatus } from '../schemas/runs.js';
import type { RunSessionsVoice, RunVoice } from '../schemas/voice.js';
import type { CatalogEntity } from './catalog.js';
import type { EndpointConnection } from '../schemas/endpoint-connections.js';
import type { Session } from '../schemas/sessions.js';
import type { TestCase, TestRecord } from '../schemas/tests.js';

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

export type { MetricStat } from './run-counters.js';

/** The stored run: the record plus what execution needs (internal `_` fields never leave the service). */
export type StoredRun = Omit<Run, 'metrics' | 'channel' | 'voice'> & {
  /** Absent on runs created before voice runs: HTTP. */
  channel?: Run['channel'];
  /**
   * A PHONE run's voice figures, computed when it finished and again when a session's figures land
   * later (runs finished before every figure existed hold `responseLatencyMs` only).
   */
  _voice?: Partial<RunSessionsVoice>;
  /** How many sessions' voice figures were stored for the run (shared/db/voice.ts). */
  _voiceStamp?: number;
  /** The `_voiceStamp` that `_voice` was computed at. */
  _voiceOf?: number;
  /** A PHONE run's barge-in recovery, kept when it finished (null: no barge-in). */
  _bargeInRecovery?: RunVoice['bargeInRecovery'];
  _plan: RunPlanEntry[];
  _stats: Record<string, MetricStat>;
  _metricNames: Record<string, string>;
  /**
   * How many counter shards the run's sessions count on (shared/db/run-counters.ts); absent on a
   * run created before shards, whose sessions count on `progress` and `_stats` here.
   */
  _shards?: number;
  /** The counters were summed into `progress` and `_stats` once every session was counted. */
  _final?: boolean;
  /** The fan-out created every session (and sealed the shards). */
  _fanoutDone?: boolean;
  /** Its sessions count the evaluations that reach its threshold on the shards (`np`), so one repetition's pass rate needs no read. */
  _passCounted?: boolean;
};

export async function createRun(run: StoredRun): Promise<StoredRun> {
  // On the index of runs not yet finished: the watchdog takes it off once it has finished.
  await createRecord(runEntity, run, [], {
    ...itemFor(runEntity, run),
    ...keys.activeRun(activeShardOf(run.id), run.id),
  });
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

/**
 * A run with the sums of its counter shards, in one BatchGet (the shards of RUN_SHARDS, what new
 * runs have); 403 another organization's, 404 none. `sums` is absent for a run without shards.
 */
export async function getRunWithShards(orgId: string, id: string): Promise<{ run: StoredRun; sums?: ShardSums }> {
  const runKey = keys.catalog(orgId, 'RUN', id);
  const items = await batchGet([runKey, ...shardKeys(id, RUN_SHARDS)], true);
  const runItem = items.find((i) => i.pk === runKey.pk && i.sk === runKey.sk);
  if (!runItem) return throwMissing(runEntity, orgId, id);
  const run = toRecord<StoredRun>(runItem, { keepInternal: true });
  if (!run._shards) return { run };
  if (run._shards !== RUN_SHARDS) return { run, sums: await readShards(id, run._shards) };
  const byKey = new Map(items.map((i) => [String(i.pk), i]));
  return { run, sums: sumShards(shardKeys(id, RUN_SHARDS).map((k) => byKey.get(k.pk))) };
}

/** The sums of several runs' shards (those with shards), by run id: BatchGets of 100 keys. */
export async function shardsOfRuns(runs: StoredRun[]): Promise<Map<string, ShardSums>> {
  const sharded = runs.filter((r) => r._shards);
  const items = await batchGet(
    sharded.flatMap((r) => shardKeys(r.id, r._shards!)),
    true,
  );
  const byKey = new Map(items.map((i) => [String(i.pk), i]));
  return new Map(sharded.map((r) => [r.id, sumShards(shardKeys(r.id, r._shards!).map((k) => byKey.get(k.pk)))]));
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
  set: Partial<StoredRun>,
  extra?: { condition: string; values: Record<string, unknown>; names?: Record<string, string> },
  items: TransactItem[] = [],
): Promise<boolean> {
  const names: Record<string, string> = { '#status': 'status', ...(extra?.names ?? {}) };
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
  /**
   * A PHONE session's call: its transaction, the step and turn it waits on, the message spoken
   * in that turn and where its audio is.
   */
  _call?: {
    transactionId: string;
    seq: number;
    turn: number;
    message: string;
    userAudioKey: string;
    /** How long the utterance plays (sessions written before it was kept have none). */
    utteranceMs?: number;
    /** A barged-in turn: how much of its answer the call records before the next utterance interrupts it. */
    headMs?: number;
  };
  /** A barging-in session: how long each utterance played, by turn (where they are on its call recording). */
  _utteranceMs?: number[];
  /** A barging-in session: the last answer's latency (how long to record of the next before interrupting it). */
  _lastLatencyMs?: number;
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

/** Sessions one transaction creates (two items each, plus what `extra` adds; DynamoDB takes 100 items). */
const SESSIONS_PER_TRANSACTION = 25;

/**
 * Creates a page of a run's sessions and their index items, 25 to a transaction (with the items
 * `extra` gives for each, e.g. its counters); returns the ids it created. A session that already
 * exists (a redelivered fan-out page) is left as it is and not returned.
 */
export async function createRunSessions(
  sessions: RunSession[],
  extra: (group: RunSession[]) => TransactItem[] = () => [],
): Promise<Set<string>> {
  const created = new Set<string>();
  for (let i = 0; i < sessions.length; i += SESSIONS_PER_TRANSACTION) {
    let group = sessions.slice(i, i + SESSIONS_PER_TRANSACTION);
    while (group.length > 0) {
      try {
        await transact([...group.flatMap(runSessionItems), ...extra(group)], (codes) => new Refused(codes));
        for (const s of group) created.add(s.id);
        break;
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        // The transaction names the items whose condition failed: those sessions exist already.
        const existing = new Set(
          group.filter((_, j) => error.codes[2 * j] === 'ConditionalCheckFailed').map((s) => s.id),
        );
        if (existing.size === 0) throw error;
        group = group.filter((s) => !existing.has(s.id));
      }
    }
  }
  return created;
}
/** A transaction DynamoDB cancelled, with the reason of each of its items. */
export class Refused extends Error {
  constructor(readonly codes: string[]) {
    super(`the transaction was cancelled (${codes.join(', ')})`);
  }
}

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

/** One page of a run's session ids, oldest first, and where the next page starts. */
export async function runSessionIdPage(
  runId: string,
  limit: number,
  startKey?: Record<string, unknown>,
): Promise<{ ids: string[]; next?: Record<string, unknown> }> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.runSessionPartition(runId) },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: startKey,
    }),
  );
  return {
    ids: (out.Items ?? []).map((i) => String(i.sessionId)),
    ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}),
  };
}

/** A run's sessions as clients see them (internal state dropped), oldest first. */
export async function sessionsOfRun(runId: string): Promise<Session[]> {
  const ids = await runSessionIds(runId);
  const items = await batchGet(ids.map((id) => keys.session(id)));
  return items.map(sessionRecord);
}

// ---------- what a run reads ----------

/**
 * One page of a test's cases in file order (gsi1), for the fan-out; `offloaded` names the cases
 * with fields kept in S3 (null in these records).
 */
export async function testCasePage(
  testId: string,
  limit: number,
  startKey?: Record<string, unknown>,
): Promise<{ cases: TestCase[]; next?: Record<string, unknown>; offloaded: Set<string> }> {
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
  const items = out.Items ?? [];
  return {
    cases: items.map((i) => toRecord<TestCase>(i)).filter((c) => !c.deletedAt),
    next: out.LastEvaluatedKey,
    offloaded: offloadedIds(items),
  };
}

const offloadedIds = (items: Record<string, unknown>[]) =>
  new Set(items.filter((i) => i._offloaded && Object.keys(i._offloaded).length).map((i) => String(i.id)));

/** Test cases by id in the order asked (missing and deleted ones left out), and those with fields in S3. */
export async function testCasesPageById(
  orgId: string,
  ids: string[],
): Promise<{ cases: TestCase[]; offloaded: Set<string> }> {
  const items = await batchGet(
    ids.map((id) => keys.catalog(orgId, 'TCASE', id)),
    true,
  );
  const byId = new Map(items.map((i) => [String(i.id), toRecord<TestCase>(i)]));
  return {
    cases: ids.map((id) => byId.get(id)).filter((c): c is TestCase => Boolean(c) && !c!.deletedAt),
    offloaded: offloadedIds(items),
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

/**
 * Marks tests as having evaluations or traces (GET /tests?hasEvaluations= / hasTraces=), once per
 * run; a test no longer stored is skipped.
 */
export async function markTests(
  orgId: string,
  testIds: string[],
  flag: '_hasEvaluations' | '_hasTraces',
): Promise<void> {
  for (const id of new Set(testIds)) {
    try {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.catalog(orgId, 'TEST', id),
          UpdateExpression: 'SET #f = :t',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#f) OR #f <> :t)',
          ExpressionAttributeNames: { '#f': flag },
          ExpressionAttributeValues: { ':t': true },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
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
 * Once, at the end of the fan-out of a run with counter shards: `missing` counted cases got no
 * session (deleted since the run was created), so they leave `total`; each shard learns how many
 * sessions hash to it (`expected`, by shard), and is sealed. One transaction; false when an
 * earlier delivery sealed it.
 */
export async function sealFanout(orgId: string, runId: string, missing: number, expected: number[]): Promise<boolean> {
  return updateIf(
    {
      TableName: tableName,
      Key: keys.catalog(orgId, 'RUN', runId),
      UpdateExpression: 'SET #done = :t, #p.#total = #p.#total - :d, #p.#pending = #p.#pending - :d',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#done)',
      ExpressionAttributeNames: { '#done': '_fanoutDone', '#p': 'progress', '#total': 'total', '#pending': 'pending' },
      ExpressionAttributeValues: { ':t': true, ':d': Math.max(0, missing) },
    },
    expected.map((n, k) => shardSeal(runId, k, n)),
  );
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

// ---------- what a fan-out page or a step reads, in one request ----------

/** The records a fan-out page or a step asks for; each is read consistently, all in one BatchGet. */
export interface RecordsWanted {
  orgId: string;
  sessionId?: string;
  runId?: string;
  versionId?: string;
  testId?: string;
  testCaseId?: string;
  productId?: string;
  connectionIds?: string[];
  /** Connections whose secrets the caller needs (never carried in a job). */
  secretIds?: string[];
  metricIds?: string[];
  /**
   * Whether this session's run was cancelled: its counter shard says (read with the rest), or,
   * for a run without shards, its item (then `run` is read too).
   */
  cancelledOf?: { runId: string; sessionId: string; shards?: number | undefined };
  /** The organization's monthly credits (what an LLM call reserves against). */
  organization?: boolean;
}

export interface RecordsRead {
  session?: RunSession;
  run?: StoredRun;
  version?: Version;
  test?: TestRecord;
  /** As stored: a field kept in S3 is null until restored (`testCaseItem` has the pointers). */
  testCase?: TestCase;
  testCaseItem?: Record<string, unknown>;
  product?: Product;
  /** Live connections by id (a deleted one is left out). */
  connections: Map<string, EndpointConnection>;
  secrets: Map<string, EndpointSecrets>;
  /** By id: the organization's own metric, else the predefined one. */
  metrics: Map<string, StoredMetric>;
  /** When asked: the organization's monthly credits (null: unlimited). */
  monthlyCredits?: number | null;
  /** When asked (`cancelledOf`): whether the run was cancelled. */
  cancelled?: boolean;
}

const keyId = (k: Key) => `${k.pk}#${k.sk}`;

export async function readRecords(want: RecordsWanted): Promise<RecordsRead> {
  const org = want.orgId;
  const of = want.cancelledOf;
  const shardKey = of?.shards ? keys.runShard(of.runId, shardOf(of.sessionId, of.shards)) : undefined;
  const runId = want.runId ?? (of && !shardKey ? of.runId : undefined);
  const wanted: Key[] = [
    ...(want.sessionId ? [keys.session(want.sessionId)] : []),
    ...(runId ? [keys.catalog(org, 'RUN', runId)] : []),
    ...(want.versionId ? [keys.catalog(org, 'VERSION', want.versionId)] : []),
    ...(want.testId ? [keys.catalog(org, 'TEST', want.testId)] : []),
    ...(want.testCaseId ? [keys.catalog(org, 'TCASE', want.testCaseId)] : []),
    ...(want.productId ? [keys.catalog(org, 'PRODUCT', want.productId)] : []),
    ...(want.connectionIds ?? []).map((id) => keys.catalog(org, 'ECON', id)),
    ...(want.secretIds ?? []).map((id) => keys.endpointSecrets(org, id)),
    ...(want.metricIds ?? []).flatMap((id) => [
      keys.catalog(org, 'METRIC', id),
      keys.catalog(PLATFORM_ORG, 'METRIC', id),
    ]),
    ...(shardKey ? [shardKey] : []),
    ...(want.organization ? [keys.organization(org)] : []),
  ];
  const items = new Map((await batchGet(wanted, true)).map((i) => [keyId(i as unknown as Key), i]));
  const item = (k: Key) => items.get(keyId(k));
  const record = <T>(k: Key | undefined) => {
    const i = k && item(k);
    return i ? toRecord<T>(i) : undefined;
  };
  const sessionItem = want.sessionId ? item(keys.session(want.sessionId)) : undefined;
  const runItem = runId ? item(keys.catalog(org, 'RUN', runId)) : undefined;
  const testCaseItem = want.testCaseId ? item(keys.catalog(org, 'TCASE', want.testCaseId)) : undefined;
  const out: RecordsRead = {
    ...(sessionItem ? { session: toRecord<RunSession>(sessionItem, { keepInternal: true }) } : {}),
    ...(runItem ? { run: toRecord<StoredRun>(runItem, { keepInternal: true }) } : {}),
    ...(testCaseItem ? { testCase: toRecord<TestCase>(testCaseItem), testCaseItem } : {}),
    connections: new Map(),
    secrets: new Map(),
    metrics: new Map(),
  };
  if (of) out.cancelled = shardKey ? item(shardKey)?.cancelled === true : !out.run || out.run.status === 'CANCELLED';
  const version = record<Version>(want.versionId ? keys.catalog(org, 'VERSION', want.versionId) : undefined);
  if (version) out.version = version;
  const test = record<TestRecord>(want.testId ? keys.catalog(org, 'TEST', want.testId) : undefined);
  if (test) out.test = test;
  const product = record<Product>(want.productId ? keys.catalog(org, 'PRODUCT', want.productId) : undefined);
  if (product) out.product = product;
  for (const id of want.connectionIds ?? []) {
    const c = record<EndpointConnection>(keys.catalog(org, 'ECON', id));
    if (c && !c.deletedAt) out.connections.set(id, c);
  }
  for (const id of want.secretIds ?? []) {
    const s = item(keys.endpointSecrets(org, id)) ?? {};
    out.secrets.set(id, {
      ...(typeof s.authToken === 'string' ? { authToken: s.authToken } : {}),
      ...(typeof s.password === 'string' ? { password: s.password } : {}),
    });
  }
  if (want.organization) {
    const credits = item(keys.organization(org))?.monthlyCredits;
    out.monthlyCredits = typeof credits === 'number' ? credits : null;
  }
  for (const id of want.metricIds ?? []) {
    const m =
      record<StoredMetric>(keys.catalog(org, 'METRIC', id)) ??
      record<StoredMetric>(keys.catalog(PLATFORM_ORG, 'METRIC', id));
    if (m) out.metrics.set(id, m);
  }
  return out;
}

/** A run's sessions by id (internal state kept), read consistently; missing ones are left out. */
export async function getRunSessions(ids: string[]): Promise<RunSession[]> {
  const items = await batchGet(
    ids.map((id) => keys.session(id)),
    true,
  );
  return items.map((i) => toRecord<RunSession>(i, { keepInternal: true }));
}
