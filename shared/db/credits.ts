import type { TransactItem } from './catalog.js';
import { tableName } from './client.js';
import type { Key } from './keys.js';

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
