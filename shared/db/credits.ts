import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import type { Key } from './keys.js';

/** A spend item's counters (zeros when the cycle has no item yet). */
export interface SpendCounters {
  spentCredits: number;
  pendingCredits: number;
  /** spent + pending: what a reservation is checked against. */
  used: number;
}

/** Reads a spend item (`keys.orgSpend` or `keys.monitorSpend`). */
export async function readSpend(key: Key, options: { consistent?: boolean } = {}): Promise<SpendCounters> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: options.consistent ?? false }));
  return {
    spentCredits: Number(out.Item?.spentCredits ?? 0),
    pendingCredits: Number(out.Item?.pendingCredits ?? 0),
    used: Number(out.Item?.used ?? 0),
  };
}

/**
 * The credit ledger. A spend item (organization or monitor, per cycle) holds `spentCredits`,
 * `pendingCredits` and `used` (= spent + pending, kept as one number because DynamoDB conditions
 * cannot add). A reservation raises `used` and `pendingCredits` only while `used` stays within the
 * limit; settling moves pending to spent; releasing gives it back.
 */
export function reserveItem(key: Key, amount: number, limit: number | null): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #used :a, pendingCredits :a SET entity = :e',
      ...(limit === null
        ? {}
        : { ConditionExpression: '(attribute_not_exists(#used) AND :a <= :limit) OR #used <= :max' }),
      ExpressionAttributeNames: { '#used': 'used' },
      ExpressionAttributeValues: { ':a': amount, ':e': 'SPEND', ...(limit === null ? {} : { ':max': limit - amount, ':limit': limit }) },
    },
  };
}

export function settleItem(key: Key, amount: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD pendingCredits :neg, spentCredits :a',
      ExpressionAttributeValues: { ':a': amount, ':neg': -amount },
    },
  };
}

export function releaseItem(key: Key, amount: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD pendingCredits :neg, #used :neg',
      ExpressionAttributeNames: { '#used': 'used' },
      ExpressionAttributeValues: { ':neg': -amount },
    },
  };
}
