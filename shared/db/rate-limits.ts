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

/** A reserved start: `at` (epoch ms), or none within reach and when to ask again. */
export type RateReservation = { ok: true; at: number } | { ok: false; retryAt: number };

/**
 * Reserves the next start of a rate-limited connection instead of polling for it: the slot is the
 * later of `tat` and `now + leadMs`, and `tat` moves one interval past it, so the starts a
 * connection grants are exactly 60/rateLimit s apart however many callers ask and however late
 * each is (a late caller does not push the next slot; the old `takeRateSlot` lost that time).
 * The caller waits until `at` and then calls. A slot further than `horizonMs` away is not taken:
 * the caller goes back on the queue until `retryAt`, when it is within reach. `leadMs` lets the
 * caller be ready before its slot (the write's own latency), so calls start on time.
 * One conditional update when the connection is idle or busy, two when it has just gone idle.
 */
export async function reserveRateSlot(
  connectionId: string,
  rateLimit: number,
  now: number,
  options: { leadMs: number; horizonMs: number },
): Promise<RateReservation> {
  if (!(rateLimit > 0)) return { ok: true, at: now };
  const interval = 60_000 / rateLimit;
  const earliest = now + options.leadMs;
  const horizon = now + Math.max(options.horizonMs, options.leadMs);
  const ttl = (t: number) => Math.ceil(t / 1000) + TTL_SECONDS_AFTER;
  let tat: number | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (tat === undefined || tat <= earliest) {
      // Idle (or gone idle): the slot is `earliest`.
      try {
        await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.rateLimit(connectionId),
            UpdateExpression: 'SET tat = :next, entity = :entity, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(tat) OR tat <= :earliest',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':next': earliest + interval,
              ':earliest': earliest,
              ':entity': 'RATE',
              ':ttl': ttl(earliest + interval),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { ok: true, at: earliest };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        tat = oldTat(error) ?? (await readTat(connectionId)) ?? earliest;
        continue;
      }
    }
    if (tat > horizon) return { ok: false, retryAt: Math.ceil(tat - (horizon - now) / 2) };
    // Busy: the slot is the current `tat`, which moves one interval on.
    try {
      const out = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.rateLimit(connectionId),
          UpdateExpression: 'SET tat = tat + :interval, #ttl = :ttl',
          ConditionExpression: 'tat > :earliest AND tat <= :horizon',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':interval': interval,
            ':earliest': earliest,
            ':horizon': horizon,
            ':ttl': ttl(horizon + interval),
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { ok: true, at: Number(out.Attributes?.tat) - interval };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      tat = oldTat(error) ?? (await readTat(connectionId));
    }
  }
  // Others kept moving the token between our reads: ask again a moment later.
  return { ok: false, retryAt: now + interval };
}

/** The `tat` of the item a failed condition returned (raw `{N: "…"}`: the document client does not unmarshall it). */
function oldTat(error: unknown): number | undefined {
  const old = (error as { Item?: Record<string, unknown> }).Item?.tat as { N?: string } | number | undefined;
  return typeof old === 'number' ? old : old?.N !== undefined ? Number(old.N) : undefined;
}

async function readTat(connectionId: string): Promise<number | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.rateLimit(connectionId), ConsistentRead: true }),
  );
  return typeof out.Item?.tat === 'number' ? out.Item.tat : undefined;
}
