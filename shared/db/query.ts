import { QueryCommand, type QueryCommandInput, BatchGetCommand, ExecuteStatementCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import type { Key } from './keys.js';
import { TABLE, type IndexName } from './table.js';

type Item = Record<string, unknown>;

/** Reads every page of a Query (never stopping at the first 1 MB page). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: start }));
    items.push(...((out.Items ?? []) as Item[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** All items of a partition whose sort key starts with a prefix. */
export function queryPrefix(pk: string, skPrefix: string, options: { consistent?: boolean } = {}): Promise<Item[]> {
  return queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
    ConsistentRead: options.consistent ?? false,
  });
}

/** All items of an index partition. */
export function queryIndex(index: IndexName, pk: string, skPrefix?: string): Promise<Item[]> {
  const pkName = `${index}pk`;
  const skName = `${index}sk`;
  return queryAll({
    IndexName: index,
    KeyConditionExpression: skPrefix ? `#pk = :pk AND begins_with(#sk, :sk)` : '#pk = :pk',
    ExpressionAttributeNames: skPrefix ? { '#pk': pkName, '#sk': skName } : { '#pk': pkName },
    ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':sk': skPrefix } : { ':pk': pk },
  });
}

/**
 * BatchGet of up to any number of keys (chunks of 100, unprocessed keys retried). Repeated keys
 * are read once (DynamoDB refuses a batch with duplicates), so `ids=a,a` reads `a` once. With
 * `projection`, only those attributes are read (an item holding none of them may come back empty).
 */
export async function batchGet(
  keys: Key[],
  consistent = false,
  projection?: { ProjectionExpression: string; ExpressionAttributeNames?: Record<string, string> },
): Promise<Item[]> {
  const keyList = [...new Map(keys.map((k) => [`${k.pk}\u0000${k.sk}`, k])).values()];
  const out: Item[] = [];
  for (let i = 0; i < keyList.length; i += 100) {
    let pending: Record<string, unknown>[] = keyList.slice(i, i + 100).map((k) => ({ pk: k.pk, sk: k.sk }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const res = await doc.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistent, ...(projection ?? {}) } },
        }),
      );
      out.push(...((res.Responses?.[tableName] ?? []) as Item[]));
      pending = (res.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
      if (attempt > 8 && pending.length > 0) throw new Error('BatchGet kept returning unprocessed keys');
    }
  }
  return out;
}

/**
 * Every item of several partitions of an index in one request per 50 partitions (PartiQL `IN`
 * on the index's partition key: DynamoDB reads only those partitions), pages followed.
 */
export async function queryIndexPartitions(index: IndexName, partitions: string[]): Promise<Item[]> {
  const partitionKey = TABLE.indexes.find((i) => i.name === index)!.partitionKey;
  const unique = [...new Set(partitions)];
  const out: Item[] = [];
  for (let i = 0; i < unique.length; i += 50) {
    const chunk = unique.slice(i, i + 50);
    const statement = `SELECT * FROM "${tableName}"."${index}" WHERE "${partitionKey}" IN [${chunk.map(() => '?').join(', ')}]`;
    let next: string | undefined;
    do {
      const res = await doc.send(
        new ExecuteStatementCommand({ Statement: statement, Parameters: chunk, NextToken: next }),
      );
      out.push(...((res.Items ?? []) as Item[]));
      next = res.NextToken;
    } while (next);
  }
  return out;
}
