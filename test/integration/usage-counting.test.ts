import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamodbReadUnits, dynamodbWriteUnits, unitsOfRequest } from '../../bench/aws-cost.js';
import { localRunQueue } from '../../infra/local/queues.js';
import { drainRunQueue } from '../../infra/local/run-queue.js';
import { observeLocalUsage, type LocalUsage } from '../../infra/local/usage.js';
import { doc, observeCapacity, tableName, type RequestCapacity } from '../../shared/db/client.js';
import { enqueueRunJobs } from '../../shared/queue/run-queue.js';
import { newTenant } from '../support/api.js';

/**
 * What `npm run bench:runs` prices a run from: the capacity DynamoDB Local reports for each request
 * (it follows DynamoDB's billing rules for the item sizes it stores), and what the local runtime
 * reports doing in AWS's place (requests, invocations, queue sends and deliveries).
 */

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  localRunQueue.messages.length = 0;
});

/** DynamoDB's size of an item of string attributes: the UTF-8 bytes of each name and value. */
const itemBytes = (item: Record<string, string>) =>
  Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);

describe('DynamoDB capacity, as bench:runs counts it', () => {
  it('reports what each request consumed, by the read and write rules of the cost model', async () => {
    const seen: RequestCapacity[] = [];
    stops.push(observeCapacity((r) => seen.push(r)));
    const key = { pk: `CAPACITY#${Date.now()}#${Math.random()}`, sk: 'probe' };
    // About 3 KB, and the same under an index's keys: each write counts for the table and the index.
    const item = { ...key, v: 'x'.repeat(3000) };
    const indexed = { ...key, sk: 'indexed', gsi1pk: 'CAPACITY', gsi1sk: key.pk, v: 'x'.repeat(3000) };
    await doc.send(new PutCommand({ TableName: tableName, Item: item }));
    await doc.send(new PutCommand({ TableName: tableName, Item: indexed }));
    await doc.send(new GetCommand({ TableName: tableName, Key: key }));
    await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: tableName, Item: { ...item, sk: 'transaction' } } }],
      }),
    );
    await expect(
      doc.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' })),
    ).rejects.toThrow();

    const units = seen.map(unitsOfRequest);
    const size = itemBytes(item);
    expect(size).toBeGreaterThan(2048);
    expect(size).toBeLessThanOrEqual(3072);
    expect(units[0]).toEqual({ read: 0, write: dynamodbWriteUnits(size, false), estimated: false });
    expect(units[1]!.write).toBe(dynamodbWriteUnits(itemBytes(indexed), false) * 2);
    expect(units[2]!.read).toBe(dynamodbReadUnits(size, 'eventual'));
    expect(units[3]!.read).toBe(dynamodbReadUnits(size, 'strong'));
    expect(units[4]!.write).toBe(dynamodbWriteUnits(itemBytes({ ...item, sk: 'transaction' }), true));
    // A write refused by its condition reports no capacity: the model estimates it.
    expect(seen[5]).toMatchObject({ operation: 'PutItem', error: 'ConditionalCheckFailedException' });
    expect(seen[5]!.consumed).toBeUndefined();
    expect(units[5]!.estimated).toBe(true);
  });

  it('asks for no capacity while nobody listens', async () => {
    const key = { pk: `CAPACITY#${Date.now()}#${Math.random()}`, sk: 'probe' };
    const unobserved = await doc.send(new GetCommand({ TableName: tableName, Key: key }));
    expect(unobserved.ConsumedCapacity).toBeUndefined();
    stops.push(observeCapacity(() => undefined));
    const observed = await doc.send(new GetCommand({ TableName: tableName, Key: key }));
    expect(observed.ConsumedCapacity).toBeDefined();
  });
});

describe('the local runtime’s usage, as bench:runs counts it', () => {
  it('reports API requests and invocations with their handler, and queue sends and deliveries', async () => {
    const seen: LocalUsage[] = [];
    stops.push(observeLocalUsage((u) => seen.push(u)));
    const { api } = await newTenant();
    const listed = await api.get('/products');
    expect(listed.status).toBe(200);
    expect(seen.filter((u) => u.kind === 'api')).toEqual([{ kind: 'api', method: 'GET', path: '/products' }]);
    const invoked = seen.filter((u) => u.kind === 'invocation').map((u) => u.handler);
    expect(invoked).toEqual(['authorizer', 'products/list']);

    await enqueueRunJobs([{ kind: 'probe' }, { kind: 'probe' }] as never);
    const sends = seen.filter((u) => u.kind === 'send');
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({ queue: 'run' });
    expect((sends[0] as { bodies: readonly string[] }).bodies).toHaveLength(2);
    let calls = 0;
    await drainRunQueue(async (event) =>
      ++calls === 1 ? { batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] } : {},
    );
    const deliveries = seen.filter((u) => u.kind === 'delivery');
    // The first delivery failed (no delete) and came back; the other two were finished.
    expect(deliveries.map((d) => (d as { deleted: number }).deleted).sort()).toEqual([0, 1, 1]);
    expect(deliveries.every((d) => d.queue === 'run')).toBe(true);
  });
});
