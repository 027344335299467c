import { UpdateCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';

/**
 * Rate-limit tokens of endpoint connections: GCRA without burst.
 *
 * One item per connection holds `tat`, the earliest moment (epoch ms) the next call may start.
 * A call at `now` takes its slot with one conditional update: `tat := now + 60000/rateLimit`
 * when `tat <= now` (or there is no item yet). When the condition fails, the stored `tat` is
 * the answer: that call goes back on the queue until then. Because every successful update moves
 * `tat` past its own `now` by a whole interval, two call starts are never closer than
 * `60 / rateLimit` seconds, whichever worker takes them, so no rolling 60-second window holds
 * more than `rateLimit` calls.
 */

/** Idle tokens disappear a day after their last slot (TTL), so deleted connections leave nothing. */
const TTL_SECONDS_AFTER = 24 * 60 * 60;

export type RateSlot = { ok: true } | { ok: false; retryAt: number };

export async function takeRateSlot(
  connectionId: string,
  rateLimit: number,
  now: number = Date.now(),
): Promise<RateSlot> {
  if (!(rateLimit > 0)) return { ok: true };
  const interval = 60_000 / rateLimit;
  const next = now + interval;
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.rateLimit(connectionId),
        UpdateExpression: 'SET tat = :next, entity = :entity, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':next': next,
          ':now': now,
          ':entity': 'RATE',
          ':ttl': Math.ceil(next / 1000) + TTL_SECONDS_AFTER,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { ok: true };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    // The document client does not unmarshall the item on an exception: it is raw `{N: "…"}`.
    const old = (error as { Item?: Record<string, unknown> }).Item?.tat as { N?: string } | number | undefined;
    let tat = typeof old === 'number' ? old : old?.N !== undefined ? Number(old.N) : undefined;
    if (tat === undefined) {
      // An engine that does not return the old item on a failed condition: read it.
      const out = await doc.send(
        new GetCommand({ TableName: tableName, Key: keys.rateLimit(connectionId), ConsistentRead: true }),
      );
      tat = typeof out.Item?.tat === 'number' ? out.Item.tat : now;
    }
    return { ok: false, retryAt: Math.ceil(tat) };
  }
}
