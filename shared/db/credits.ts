import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { transact, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys, type Key } from './keys.js';

/** A spend item's counters (zeros when the cycle has no item yet). */
export interface SpendCounters {
  spentCredits: number;
  pendingCredits: number;
  /** spent + pending: what a reservation is checked against. */
  used: number;
}

/** Reads a spend item (`keys.orgSpend` or `keys.monitorSpend`). */
export async function readSpend(key: Key, options: { consistent?: boolean } = {}): Promise<SpendCounters> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: options.consistent ?? false }),
  );
  return spendOf(out.Item);
}

/** A spend item's counters (zero when there is no item yet). */
export function spendOf(item: Record<string, unknown> | undefined): SpendCounters {
  return {
    spentCredits: Number(item?.spentCredits ?? 0),
    pendingCredits: Number(item?.pendingCredits ?? 0),
    used: Number(item?.used ?? 0),
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
      ExpressionAttributeValues: {
        ':a': amount,
        ':e': 'SPEND',
        ...(limit === null ? {} : { ':max': limit - amount, ':limit': limit }),
      },
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

/**
 * A charge against the organization alone (LLM calls of runs and generation; no monitor cap):
 * reserves `amount` on the organization's spend item of `cycle` while it stays within `limit`
 * (null = unlimited). Returns false, and changes nothing, when the credits are not there.
 */
export async function reserveOrgCredits(
  orgId: string,
  cycle: string,
  amount: number,
  limit: number | null,
): Promise<boolean> {
  try {
    await doc.send(new UpdateCommand(reserveItem(keys.orgSpend(orgId, cycle), amount, limit).Update!));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Moves a reservation made by `reserveOrgCredits` from pending to spent. */
export async function settleOrgCredits(orgId: string, cycle: string, amount: number): Promise<void> {
  await doc.send(new UpdateCommand(settleItem(keys.orgSpend(orgId, cycle), amount).Update!));
}

/**
 * Settles a reservation (when `amount` > 0) in one transaction with `items` (what the caller
 * records of the answer it paid for); false when an item's condition failed: then the credits are
 * settled alone, and the items are not written.
 */
export async function settleOrgCreditsWith(
  orgId: string,
  cycle: string,
  amount: number,
  items: TransactItem[],
): Promise<boolean> {
  const settle = amount > 0 ? [settleItem(keys.orgSpend(orgId, cycle), amount)] : [];
  try {
    await transact([...settle, ...items], (codes) =>
      codes.includes('ConditionalCheckFailed') ? new ItemsRefused() : undefined,
    );
    return true;
  } catch (error) {
    if (!(error instanceof ItemsRefused)) throw error;
    if (amount > 0) await settleOrgCredits(orgId, cycle, amount);
    return false;
  }
}
class ItemsRefused extends Error {}

/** Gives a reservation made by `reserveOrgCredits` back. */
export async function releaseOrgCredits(orgId: string, cycle: string, amount: number): Promise<void> {
  await doc.send(new UpdateCommand(releaseItem(keys.orgSpend(orgId, cycle), amount).Update!));
}
