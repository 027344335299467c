import { listOrgRecords, type TransactItem } from '../../db/catalog.js';
import { commitOnce, deliveryPut, eventGuardPut, type StoredDelivery } from '../../db/webhooks.js';
import { logger } from '../../observability/logger.js';
import { enqueueDeliveries, type DeliveryJob } from '../../queue/webhook-queue.js';
import type { Webhook, WebhookEventType } from '../../schemas/webhooks.js';
import { clock } from '../common/clock.js';
import { webhookEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';

/**
 * Events. An event is written together with the change that causes it: its
 * once-only guard (keyed by the change) and one delivery per subscribed endpoint, in the same
 * transaction as the change where there is one, so a redelivered job or a lost race sends nothing
 * twice. The delivery jobs are put on the queue after the commit; the sweep picks up any that
 * never made it there.
 */

/** How long deliveries and event guards are kept. */
export const DELIVERY_RETENTION_DAYS = 30;

/** What one event writes (to add to the transaction of its change) and enqueues after the commit. */
export interface EventWrites {
  items: TransactItem[];
  jobs: DeliveryJob[];
}

export const NO_EVENT: EventWrites = { items: [], jobs: [] };

export function retentionTtl(at: Date): number {
  return Math.floor(at.getTime() / 1000) + DELIVERY_RETENTION_DAYS * 86_400;
}

/** A new delivery of one message to one endpoint, due at once. */
export function newDelivery(
  webhook: Pick<Webhook, 'id' | 'organizationId'>,
  messageId: string,
  type: WebhookEventType,
  body: string,
  at: string,
): StoredDelivery {
  return {
    id: messageId,
    webhookId: webhook.id,
    organizationId: webhook.organizationId,
    type,
    status: 'PENDING',
    attemptCount: 0,
    responseCode: null,
    durationMs: null,
    error: null,
    lastAttemptAt: null,
    nextAttemptAt: at,
    attempts: [],
    body,
    createdAt: at,
    _queued: true,
  };
}

/** The body every attempt of a message sends: `{type, timestamp, data}`. */
export function messageBody(type: WebhookEventType, at: string, data: unknown): string {
  return JSON.stringify({ type, timestamp: at, data });
}

/**
 * The writes of one event: its guard (`dedupeKey`, unique per change) and a delivery to each
 * enabled endpoint of the organization subscribed to `type`. Nothing when none is.
 */
export async function eventWrites(
  orgId: string,
  type: WebhookEventType,
  data: unknown,
  dedupeKey: string,
): Promise<EventWrites> {
  const targets = (await listOrgRecords<Webhook>(webhookEntity, orgId)).filter(
    (w) => w.status === 'ENABLED' && w.events.includes(type),
  );
  if (targets.length === 0) return NO_EVENT;
  const now = clock.now();
  const at = now.toISOString();
  const messageId = newId('message', now.getTime());
  const body = messageBody(type, at, data);
  const ttl = retentionTtl(now);
  return {
    items: [
      eventGuardPut(orgId, dedupeKey, type, messageId, ttl),
      ...targets.map((w) => deliveryPut(newDelivery(w, messageId, type, body, at), ttl)),
    ],
    jobs: targets.map((w) => ({
      kind: 'deliver',
      organizationId: orgId,
      webhookId: w.id,
      deliveryId: messageId,
      attempt: 1,
    })),
  };
}

/** After the commit: the first attempts go on the queue (the sweep covers a failed enqueue). */
export async function publish(writes: EventWrites): Promise<void> {
  try {
    await enqueueDeliveries(writes.jobs);
  } catch (error) {
    logger.warn('webhook deliveries not enqueued; the sweep will send them', { error: (error as Error).message });
  }
}

/**
 * Emits an event on its own (no change to commit with it): once per `dedupeKey` in the
 * organization, however often it is called. Returns false when it was emitted before (or no
 * endpoint listens). Use it where a change has already been committed, e.g.
 * `emitEvent(orgId, 'test.generated', testRecord, `test.generated#${test.id}`)`.
 */
export async function emitEvent(
  orgId: string,
  type: WebhookEventType,
  data: unknown,
  dedupeKey: string,
): Promise<boolean> {
  const writes = await eventWrites(orgId, type, data, dedupeKey);
  if (writes.items.length === 0) return false;
  if (!(await commitOnce(writes.items))) return false;
  await publish(writes);
  return true;
}
