import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newItemWrite, updateIf, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys, type Key } from './keys.js';
import { queryAll, queryIndex } from './query.js';
import { toRecord } from './records.js';
import type { Sums } from '../domain/monitors/statistics.js';
import type { Monitor } from '../schemas/monitors.js';

export const MONITOR_SHARDS = 16;

export function shardOf(id: string): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) % MONITOR_SHARDS;
}

/** The monitor record's item: catalog key, by product (gsi1) and, while live, its scan shard (gsi2). */
export function monitorItem(m: Monitor): Record<string, unknown> {
  return {
    ...keys.catalog(m.organizationId, 'MONITOR', m.id),
    ...keys.byProduct(m.productId, 'MONITOR', m.createdAt, m.id),
    ...(m.deletedAt ? {} : keys.monitorShard(shardOf(m.id), m.id)),
    entity: 'MONITOR',
    ...m,
  };
}

export async function monitorsOfShard(shard: number): Promise<Monitor[]> {
  return (await queryIndex('gsi2', keys.monitorShardPartition(shard))).map((i) => toRecord<Monitor>(i));
}

/** Items of a monitor partition whose sort key lies in [from, to]. */
export async function monitorRange(monitorId: string, from: string, to: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
    ExpressionAttributeValues: { ':pk': `MONITOR#${monitorId}`, ':a': from, ':b': to },
  });
}

/** The newest `limit` items of a monitor's gsi1 list (waiting or scored). */
export async function newestOf(partition: string, limit: number, below?: string): Promise<Record<string, unknown>[]> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: below ? 'gsi1pk = :pk AND gsi1sk < :below' : 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': partition, ...(below ? { ':below': below } : {}) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as Record<string, unknown>[];
}

/** Waiting sessions whose last turn is older than the cutoff (oldest first, bounded). */
export async function idleWaiting(monitorId: string, cutoff: string, limit = 500): Promise<Record<string, unknown>[]> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :cutoff',
      ExpressionAttributeValues: { ':pk': keys.monitorWaitingPartition(monitorId), ':cutoff': cutoff },
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as Record<string, unknown>[];
}

/** The newest attempts (evaluation outcomes) of a monitor. */
export async function latestAttempts(monitorId: string, limit: number): Promise<{ ok: boolean; at: string }[]> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': `MONITOR#${monitorId}`, ':sk': 'ATTEMPT#' },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => ({ ok: Boolean(i.ok), at: String(i.at) }));
}

/**
 * A status write conditional on the status read, so a user's concurrent change wins, with `items`
 * (the event of the change) in the same transaction; false when it lost.
 */
export async function setMonitorStatusIf(
  monitor: Pick<Monitor, 'id' | 'organizationId' | 'status'>,
  to: Monitor['status'],
  items: TransactItem[] = [],
): Promise<boolean> {
  const update = {
    TableName: tableName,
    Key: keys.catalog(monitor.organizationId, 'MONITOR', monitor.id),
    UpdateExpression: 'SET #s = :to',
    ConditionExpression: '#s = :from AND attribute_not_exists(deletedAt)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':to': to, ':from': monitor.status },
  };
  return updateIf(update, items);
}

// ---------- waiting and queued sessions ----------

/** A session waiting for a monitor (until it closes). */
export interface WaitingEntry {
  monitorId: string;
  organizationId: string;
  sessionId: string;
  weight: number;
  attachedAt: string;
  lastTurnAt: string;
  description: string;
}

export async function getWaitingEntry(monitorId: string, sessionId: string): Promise<WaitingEntry | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.monitorWaiting(monitorId, sessionId), ConsistentRead: true }),
  );
  return out.Item ? toRecord<WaitingEntry>(out.Item) : undefined;
}

/**
 * Moves a waiting entry's last turn (and its gsi1 position); sets the description when given.
 * False when the session no longer waits for the monitor.
 */
export async function touchWaitingEntry(
  monitorId: string,
  sessionId: string,
  lastTurnAt: string,
  description?: string,
): Promise<boolean> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.monitorWaiting(monitorId, sessionId),
        UpdateExpression: `SET lastTurnAt = :at, gsi1sk = :sk${description !== undefined ? ', description = :d' : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':at': lastTurnAt,
          ':sk': keys.monitorWaitingByTurn(monitorId, lastTurnAt, sessionId).gsi1sk,
          ...(description !== undefined ? { ':d': description } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** A closed session queued for a monitor's evaluation. */
/** A change of a monitor's sampling percentage, from `at` on (the results read it back per day). */
export function samplingMarker(monitorId: string, at: string, samplingPercentage: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.monitorSampling(monitorId, at), entity: 'SAMPLING', at, samplingPercentage },
    },
  };
}

/**
 * The writes that attach a new production session to the monitors that sampled it: a waiting
 * entry each (with its weight, fixed now), and the monitors' ids on the session.
 */
export function attachSessionWrites(
  session: { id: string; organizationId: string; createdAt: string },
  sampled: { monitorId: string; weight: number }[],
): TransactItem[] {
  const at = session.createdAt;
  return [
    ...sampled.map(
      ({ monitorId, weight }): TransactItem => ({
        Put: {
          TableName: tableName,
          Item: {
            ...keys.monitorWaiting(monitorId, session.id),
            ...keys.monitorWaitingByTurn(monitorId, at, session.id),
            entity: 'WAIT',
            monitorId,
            organizationId: session.organizationId,
            sessionId: session.id,
            weight,
            attachedAt: at,
            lastTurnAt: at,
            description: '',
          },
        },
      }),
    ),
    {
      Update: {
        TableName: tableName,
        Key: keys.session(session.id),
        UpdateExpression: 'ADD #m :m',
        ExpressionAttributeNames: { '#m': '_monitorIds' },
        ExpressionAttributeValues: { ':m': new Set(sampled.map((m) => m.monitorId)) },
      },
    },
  ];
}

/** The end of a session's wait for a monitor: fails when another closer removed it first. */
export function waitingEntryRelease(monitorId: string, sessionId: string): TransactItem {
  return {
    Delete: {
      TableName: tableName,
      Key: keys.monitorWaiting(monitorId, sessionId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

/** A closed session that passed a monitor's filters, queued for its evaluation. */
export function queuedEntryWrite(
  monitorId: string,
  entry: { organizationId: string; sessionId: string; weight: number; description: string; turns: number },
): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.monitorQueued(monitorId, entry.sessionId), entity: 'QUEUED', ...entry },
    },
  };
}

/** Counts a closed session a monitor's filters dropped. */
export function skippedSessionWrite(monitorId: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.monitorStats(monitorId),
      UpdateExpression: 'ADD skippedSessions :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/**
 * The guard of a monitor's evaluation of one session for one family, for the transaction that
 * creates the evaluation: fails when a redelivered job created it first.
 */
export function evaluationGuardWrite(
  monitorId: string,
  sessionId: string,
  groupId: string,
  guard: EvaluationGuard,
): TransactItem {
  return newItemWrite({ ...keys.monitorEvaluationGuard(monitorId, sessionId, groupId), entity: 'EVALFOR', ...guard });
}

/** One attempt of a monitor's evaluation (for the FAILING rule), kept `ttl` (epoch seconds). */
export function monitorAttemptWrite(
  monitorId: string,
  attempt: { evaluationId: string; at: string; ok: boolean; ttl: number },
): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.monitorAttempt(monitorId, attempt.at, attempt.evaluationId),
        entity: 'ATTEMPT',
        at: attempt.at,
        ok: attempt.ok,
        ttl: attempt.ttl,
      },
    },
  };
}

/**
 * What a monitor's successful evaluation leaves: the score (for the daily bucket of its day and
 * family), the scored-session entry and the bucket's dirty marker (`touchedAt`) for the aggregator.
 */
export function monitorScoreWrites(
  monitorId: string,
  scored: {
    sessionId: string;
    groupId: string;
    metricId: string;
    score: number;
    weight: number;
    evaluatedAt: string;
    settledAtTurn: number | null;
    description: string;
    touchedAt: string;
  },
): TransactItem[] {
  const at = scored.evaluatedAt;
  const day = at.slice(0, 10);
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.monitorScore(monitorId, day, scored.groupId, scored.sessionId),
          entity: 'SCORE',
          score: scored.score,
          weight: scored.weight,
          evaluatedAt: at,
          metricId: scored.metricId,
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.monitorScored(monitorId, scored.sessionId),
          ...keys.monitorScoredByTime(monitorId, at, scored.sessionId),
          entity: 'SCORED',
          sessionId: scored.sessionId,
          evaluatedAt: at,
          settledAtTurn: scored.settledAtTurn,
          description: scored.description,
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.dirtyBucket(shardOf(monitorId), monitorId, day, scored.groupId),
          entity: 'DIRTY',
          monitorId,
          day,
          groupId: scored.groupId,
          touchedAt: scored.touchedAt,
        },
      },
    },
  ];
}

/** The dirty markers of one shard: buckets touched since the aggregator's last run. */
export function dirtyMarkersOfShard(shard: number): Promise<Record<string, unknown>[]> {
  return queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `DIRTY#${shard}` },
    ConsistentRead: true,
  });
}

export interface QueuedEntry {
  organizationId: string;
  sessionId: string;
  weight: number;
  description: string;
  turns: number;
}

export async function getQueuedEntry(monitorId: string, sessionId: string): Promise<QueuedEntry | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.monitorQueued(monitorId, sessionId), ConsistentRead: true }),
  );
  return out.Item ? toRecord<QueuedEntry>(out.Item) : undefined;
}

export async function deleteQueuedEntry(monitorId: string, sessionId: string): Promise<void> {
  await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.monitorQueued(monitorId, sessionId) }));
}

/** What a monitor's evaluation of one session and family holds (its guard item). */
export interface EvaluationGuard {
  evaluationId: string;
  weight: number;
  description: string;
  turns: number;
}

export async function getEvaluationGuard(
  monitorId: string,
  sessionId: string,
  groupId: string,
): Promise<EvaluationGuard | undefined> {
  const out = await doc.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.monitorEvaluationGuard(monitorId, sessionId, groupId),
      ConsistentRead: true,
    }),
  );
  return out.Item ? toRecord<EvaluationGuard>(out.Item) : undefined;
}

// ---------- daily buckets ----------

/** Overwrites one daily bucket with its recomputed sums. */
export async function putBucket(
  monitorId: string,
  day: string,
  groupId: string,
  sums: Sums,
  updatedAt: string,
): Promise<void> {
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.monitorBucket(monitorId, day, groupId),
        entity: 'BUCKET',
        monitorId,
        day,
        groupId,
        ...sums,
        updatedAt,
      },
    }),
  );
}

/** Deletes a dirty marker unless it was touched again since it was read; false when it was. */
export async function deleteDirtyMarkerIfUntouched(marker: Key & { touchedAt: unknown }): Promise<boolean> {
  try {
    await doc.send(
      new DeleteCommand({
        TableName: tableName,
        Key: { pk: marker.pk, sk: marker.sk },
        ConditionExpression: 'touchedAt = :t',
        ExpressionAttributeValues: { ':t': marker.touchedAt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** The ids of a monitor's sessions scored in [from, to] (its scored list on gsi1, every page). */
export async function scoredSessionIdsBetween(monitorId: string, from: string, to: string): Promise<string[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :a AND :b',
    ExpressionAttributeValues: { ':pk': keys.monitorScoredPartition(monitorId), ':a': from, ':b': `${to}#\uffff` },
  });
  return [...new Set(items.map((i) => String(i.sessionId)))];
}
