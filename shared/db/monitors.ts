import { createHash } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { queryAll, queryIndex } from './query.js';
import { toRecord } from './records.js';
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
