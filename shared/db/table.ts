import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one table's definition, read by CDK (infra/stack.ts) and by the local runtime, so both
 * build the same keys and indexes. Generic attribute names; meanings live in keys.ts.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
  timeToLiveAttribute: 'ttl',
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/** Attributes that belong to storage, not to the domain record. */
export const KEY_ATTRIBUTES = new Set<string>([
  TABLE.partitionKey,
  TABLE.sortKey,
  ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  TABLE.timeToLiveAttribute,
  'entity',
]);

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttrs = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttrs.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE.indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' },
        { AttributeName: i.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}
