import type { AuthContext } from '../../auth/context.js';
import { createRecord, getRecord, listOrgRecords, softDeleteWrite, transact, updateRecord } from '../../db/catalog.js';
import { listDeliveries, webhookSecretDelete, webhookSecretPut, type StoredDelivery } from '../../db/webhooks.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type {
  Delivery,
  DeliveryListQuery,
  Webhook,
  WebhookCreate,
  WebhookListQuery,
  WebhookUpdate,
} from '../../schemas/webhooks.js';
import { checkUrl } from '../catalog/url-rules.js';
import { clock } from '../common/clock.js';
import { webhookEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { anyOf, applyList, containsIgnoreCase, intersects, type Page } from '../common/list.js';
import { newSigningSecret } from './signing.js';

/** Webhook endpoints of an organization. */

/** Every event transaction holds a delivery per endpoint: this keeps it far below DynamoDB's 100 items. */
export const MAX_WEBHOOKS = 20;
const CREDENTIALS_RULE = 'url must not carry credentials; deliveries are authenticated by their signature';

/** The record every read returns: absent optional state shown as null, the secret never. */
export function webhookView(w: Webhook): Webhook {
  return {
    ...w,
    description: w.description ?? null,
    disabledReason: w.disabledReason ?? null,
    disabledAt: w.disabledAt ?? null,
    failingSince: w.failingSince ?? null,
  };
}

export function deliveryView(d: StoredDelivery): Delivery {
  const { body, organizationId: _org, _claimUntil: _claim, _queued: _q, ...rest } = d;
  return { ...rest, payload: JSON.parse(body) as Delivery['payload'] };
}

/** POST /webhooks: the record and its signing secret, shown this once. */
export async function createWebhook(auth: AuthContext, input: WebhookCreate): Promise<Webhook & { secret: string }> {
  checkUrl(input.url, CREDENTIALS_RULE);
  const existing = await listOrgRecords<Webhook>(webhookEntity, auth.organizationId);
  if (existing.length >= MAX_WEBHOOKS)
    throw new ConflictError(`an organization may have at most ${MAX_WEBHOOKS} webhooks; delete one first`);
  const secret = newSigningSecret();
  const record: Webhook = {
    id: newId('webhook'),
    organizationId: auth.organizationId,
    userId: auth.userId,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    status: 'ENABLED',
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    createdAt: clock.now().toISOString(),
  };
  // failingSince is kept only while failing (the delivery path sets it with if_not_exists).
  const { failingSince: _f, ...stored } = record;
  await createRecord(webhookEntity, stored as Webhook, [webhookSecretPut(auth.organizationId, record.id, secret)]);
  return { ...record, secret };
}

export async function getWebhook(auth: AuthContext, id: string): Promise<Webhook> {
  return webhookView(await getRecord<Webhook>(webhookEntity, auth.organizationId, id, { includeDeleted: true }));
}

/** An organization's webhook as reads show it (NotFoundError when it has none by that id). */
export async function liveWebhook(auth: AuthContext, id: string): Promise<Webhook> {
  return webhookView(await getRecord<Webhook>(webhookEntity, auth.organizationId, id));
}

export async function listWebhooks(auth: AuthContext, query: WebhookListQuery): Promise<Page<Webhook>> {
  const records = (await listOrgRecords<Webhook>(webhookEntity, auth.organizationId)).map(webhookView);
  return applyList(records, query, {
    sortable: ['createdAt', 'url', 'status'],
    filters: [
      ...(query.url ? [(w: Webhook) => containsIgnoreCase(w.url, query.url!)] : []),
      ...intersects<Webhook>(query.events, (w) => w.events),
      ...anyOf<Webhook>(query.statuses, (w) => w.status),
    ],
  });
}

/** PATCH: url, events, description; status ENABLED re-enables (clearing the reason), DISABLED stops deliveries. */
export async function updateWebhook(auth: AuthContext, id: string, body: WebhookUpdate): Promise<Webhook> {
  if (body.url !== undefined) checkUrl(body.url, CREDENTIALS_RULE);
  const current = await liveWebhook(auth, id);
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  if (body.url !== undefined) set.url = body.url;
  if (body.events !== undefined) set.events = body.events;
  if (body.description !== undefined) set.description = body.description;
  if (body.status !== undefined && body.status !== current.status) {
    set.status = body.status;
    if (body.status === 'ENABLED') {
      Object.assign(set, { disabledReason: null, disabledAt: null });
      remove.push('failingSince');
    } else {
      Object.assign(set, { disabledReason: 'disabled by a user', disabledAt: clock.now().toISOString() });
    }
  }
  return webhookView(await updateRecord<Webhook>(webhookEntity, auth.organizationId, id, set, remove));
}

/** DELETE: soft delete; the secret goes at once and pending deliveries stop at their next attempt. */
export async function deleteWebhook(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  await liveWebhook(auth, id);
  const deletedAt = clock.now().toISOString();
  await transact(
    [softDeleteWrite(webhookEntity, auth.organizationId, id, deletedAt), webhookSecretDelete(auth.organizationId, id)],
    (codes) => (codes[0] === 'ConditionalCheckFailed' ? new NotFoundError(`webhook ${id} not found`) : undefined),
  );
  return { id, deletedAt };
}

/** GET /webhooks/{id}/deliveries: newest first by default; each with its attempts. */
export async function listWebhookDeliveries(
  auth: AuthContext,
  id: string,
  query: DeliveryListQuery,
): Promise<Page<Delivery>> {
  await liveWebhook(auth, id);
  const deliveries = (await listDeliveries(id)).map(deliveryView);
  return applyList(deliveries, query, {
    sortable: ['createdAt', 'status', 'type', 'lastAttemptAt', 'nextAttemptAt', 'attemptCount'],
    filters: [...anyOf<Delivery>(query.statuses, (d) => d.status), ...anyOf<Delivery>(query.types, (d) => d.type)],
  });
}
