import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { transact, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { leaseFreeBelow } from './leases.js';
import { MONITOR_SHARDS, shardOf } from './monitors.js';
import { queryPrefix } from './query.js';
import { toRecord } from './records.js';
import { updateOf } from './update.js';
import type { Delivery, DeliveryAttempt, WebhookEventType } from '../schemas/webhooks.js';

/** Data access of webhook endpoints, their secrets, deliveries and event guards. */

export const DELIVERY_SHARDS = MONITOR_SHARDS;

export function webhookSecretPut(orgId: string, webhookId: string, secret: string): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.webhookSecret(orgId, webhookId), entity: 'WEBHOOKSECRET', secret },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export function webhookSecretDelete(orgId: string, webhookId: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keys.webhookSecret(orgId, webhookId) } };
}

/** The signing secret; read only by the delivery path, never by a read route. */
export async function getWebhookSecret(orgId: string, webhookId: string): Promise<string | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.webhookSecret(orgId, webhookId), ConsistentRead: true }),
  );
  return typeof out.Item?.secret === 'string' ? out.Item.secret : undefined;
}

/** A delivery as stored: the record plus the exact body every attempt signs and sends. */
export type StoredDelivery = Omit<Delivery, 'payload'> & {
  organizationId: string;
  body: string;
  _claimUntil?: string;
  _queued?: boolean;
};

/** The Put of a new delivery, due at once (on the sweep's index while an attempt is due). */
export function deliveryPut(d: StoredDelivery, ttlSeconds: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.webhookDelivery(d.webhookId, d.id),
        ...(d.nextAttemptAt ? keys.deliveryDue(shardOf(d.id), d.nextAttemptAt, d.id) : {}),
        entity: 'DELIVERY',
        ...d,
        ttl: ttlSeconds,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getDelivery(webhookId: string, deliveryId: string): Promise<StoredDelivery | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.webhookDelivery(webhookId, deliveryId), ConsistentRead: true }),
  );
  return out.Item ? toRecord<StoredDelivery>(out.Item, { keepInternal: true }) : undefined;
}

export async function listDeliveries(webhookId: string): Promise<StoredDelivery[]> {
  const { pk, skPrefix } = keys.webhookDeliveryPrefix(webhookId);
  return (await queryPrefix(pk, skPrefix)).map((i) => toRecord<StoredDelivery>(i));
}

/**
 * Takes attempt `attempt` of a pending delivery for `leaseMs`: false when it was made already, the
 * delivery is over, or another worker holds it. Only the holder sends, so a redelivered job or
 * the sweep does not send the same attempt twice while it runs.
 */
export async function claimAttempt(
  webhookId: string,
  deliveryId: string,
  attempt: number,
  now: string,
  until: string,
): Promise<boolean> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.webhookDelivery(webhookId, deliveryId),
        UpdateExpression: 'SET #claim = :until',
        ConditionExpression:
          '#status = :pending AND attemptCount = :done AND (attribute_not_exists(#claim) OR #claim < :now)',
        ExpressionAttributeNames: { '#claim': '_claimUntil', '#status': 'status' },
        ExpressionAttributeValues: {
          ':until': until,
          ':pending': 'PENDING',
          ':done': attempt - 1,
          // A claim that ended, or one taken by a runtime that stopped (./leases.ts), is free.
          ':now': new Date(leaseFreeBelow(Date.parse(now), Date.parse(until) - Date.parse(now))).toISOString(),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** What one attempt changes on its delivery. */
export interface AttemptOutcome {
  attempt: DeliveryAttempt;
  status: Delivery['status'];
  nextAttemptAt: string | null;
}

/** The update recording attempt `outcome.attempt.attempt` (holds only if no other worker recorded it). */
export function attemptUpdate(
  d: Pick<StoredDelivery, 'webhookId' | 'id'>,
  outcome: AttemptOutcome & { queued: boolean },
): TransactItem {
  const a = outcome.attempt;
  const set: Record<string, unknown> = {
    _queued: outcome.queued,
    status: outcome.status,
    attemptCount: a.attempt,
    responseCode: a.responseCode,
    durationMs: a.durationMs,
    error: a.error,
    lastAttemptAt: a.at,
    nextAttemptAt: outcome.nextAttemptAt,
    ...(outcome.nextAttemptAt ? keys.deliveryDue(shardOf(d.id), outcome.nextAttemptAt, d.id) : {}),
  };
  const update = updateOf(
    keys.webhookDelivery(d.webhookId, d.id),
    set,
    outcome.nextAttemptAt ? ['_claimUntil'] : ['_claimUntil', 'gsi1pk', 'gsi1sk'],
    {
      expression: 'attemptCount = :before',
      values: { ':before': a.attempt - 1 },
    },
  );
  // Appends the attempt to the log kept on the delivery.
  update.UpdateExpression = update.UpdateExpression.replace(
    /^SET /,
    'SET attempts = list_append(attempts, :attempt), ',
  );
  (update as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues = {
    ...update.ExpressionAttributeValues,
    ':attempt': [a],
  };
  return { Update: update };
}

/** Ends a pending delivery without an attempt (its endpoint was deleted or disabled). */
export async function abandonDelivery(webhookId: string, deliveryId: string, reason: string): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        ...updateOf(
          keys.webhookDelivery(webhookId, deliveryId),
          { status: 'FAILED', error: reason, nextAttemptAt: null },
          ['_claimUntil', 'gsi1pk', 'gsi1sk'],
          {
            expression: '#st = :pending',
            names: { '#st': 'status' },
            values: { ':pending': 'PENDING' },
          },
        ),
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/** A pending delivery whose attempt is due (from the sweep's index). */
export interface DueDelivery {
  organizationId: string;
  webhookId: string;
  deliveryId: string;
  attempt: number;
  nextAttemptAt: string;
  /** Whether its attempt was put on the queue (false: a wait longer than the queue's delay). */
  queued: boolean;
  claimUntil?: string;
}

/** Pending deliveries of one shard due at or before `now`, oldest first (bounded). */
export async function dueDeliveries(shard: number, now: string, limit = 500): Promise<DueDelivery[]> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :now',
      ExpressionAttributeValues: { ':pk': keys.deliveryDuePartition(shard), ':now': `${now}#~` },
      Limit: limit,
    }),
  );
  return (out.Items ?? [])
    .filter((i) => i.status === 'PENDING')
    .map((i) => ({
      organizationId: String(i.organizationId),
      webhookId: String(i.webhookId),
      deliveryId: String(i.id),
      attempt: Number(i.attemptCount) + 1,
      nextAttemptAt: String(i.nextAttemptAt),
      queued: i._queued === true,
      ...(typeof i._claimUntil === 'string' ? { claimUntil: i._claimUntil } : {}),
    }));
}

/** Notes that attempt `attempt` of a delivery is on the queue (so the sweep leaves it there). */
export async function markDeliveryQueued(webhookId: string, deliveryId: string, attempt: number): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        ...updateOf(keys.webhookDelivery(webhookId, deliveryId), { _queued: true }, [], {
          expression: 'attemptCount = :before',
          values: { ':before': attempt - 1 },
        }),
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/** The once-only guard of an event, kept `ttlSeconds` (its dedupe key is the sort key). */
export function eventGuardPut(
  orgId: string,
  dedupeKey: string,
  type: WebhookEventType,
  messageId: string,
  ttlSeconds: number,
): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.eventGuard(orgId, dedupeKey), entity: 'EVENTGUARD', type, messageId, ttl: ttlSeconds },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Runs a transaction whose first item is a once-only condition (an event's guard, an attempt's
 * count): false when that condition failed, i.e. the work was done before.
 */
export async function commitOnce(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items, (codes) => (codes[0] === 'ConditionalCheckFailed' ? new DoneBefore() : undefined));
    return true;
  } catch (error) {
    if (error instanceof DoneBefore) return false;
    throw error;
  }
}
class DoneBefore extends Error {}

/**
 * What an attempt tells about its endpoint: a success ends its failing streak; a failure starts
 * one (`failingSince`, kept while failures go on).
 */
export function endpointHealthUpdate(orgId: string, webhookId: string, ok: boolean, at: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.catalog(orgId, 'WEBHOOK', webhookId),
      UpdateExpression: ok ? 'REMOVE failingSince' : 'SET failingSince = if_not_exists(failingSince, :at)',
      ConditionExpression: 'attribute_exists(pk)',
      ...(ok ? {} : { ExpressionAttributeValues: { ':at': at } }),
    },
  };
}

/** Disables an enabled endpoint failing since `cutoff` or earlier; false when it is not (any more). */
export async function disableFailingEndpoint(
  orgId: string,
  webhookId: string,
  cutoff: string,
  reason: string,
  at: string,
): Promise<boolean> {
  try {
    await doc.send(
      new UpdateCommand({
        ...updateOf(
          keys.catalog(orgId, 'WEBHOOK', webhookId),
          { status: 'DISABLED', disabledReason: reason, disabledAt: at },
          [],
          {
            expression: '#st = :enabled AND failingSince <= :cutoff AND attribute_not_exists(deletedAt)',
            names: { '#st': 'status' },
            values: { ':enabled': 'ENABLED', ':cutoff': cutoff },
          },
        ),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
