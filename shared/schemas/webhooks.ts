import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, Nullable, StringEnum } from './common.js';
import { MAX_LIMIT } from './common.js';

/** The events a webhook endpoint may subscribe to. */
export const WEBHOOK_EVENTS = [
  'run.completed',
  'run.failed',
  'test.generated',
  'test.failed',
  'monitor.status_changed',
  'alert.opened',
  'alert.resolved',
  'ping',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
export const WEBHOOK_STATUSES = ['ENABLED', 'DISABLED'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'an absolute http or https URL' });
const Events = Type.Array(StringEnum(WEBHOOK_EVENTS), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
});
const Description = Nullable(Type.String({ maxLength: 1000 }));

export const WebhookCreate = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type WebhookCreate = Static<typeof WebhookCreate>;

export const WebhookUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    /** ENABLED turns a disabled endpoint back on (and clears its reason); DISABLED stops deliveries. */
    status: Type.Optional(StringEnum(WEBHOOK_STATUSES)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookUpdate = Static<typeof WebhookUpdate>;

const page = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  fromCreatedAt: Type.Optional(DateTime),
  toCreatedAt: Type.Optional(DateTime),
  sort: Type.Optional(
    Type.Array(Type.String({ pattern: '^[A-Za-z]+:(asc|desc)$', description: 'field:asc or field:desc' }), {
      maxItems: 5,
    }),
  ),
};

export const WebhookListQuery = Type.Object(
  {
    ...page,
    ids: Type.Optional(IdList),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(Type.Array(StringEnum(WEBHOOK_EVENTS), { maxItems: WEBHOOK_EVENTS.length })),
    statuses: Type.Optional(Type.Array(StringEnum(WEBHOOK_STATUSES), { maxItems: 2 })),
  },
  { additionalProperties: false },
);
export type WebhookListQuery = Static<typeof WebhookListQuery>;

export const DeliveryListQuery = Type.Object(
  {
    ...page,
    ids: Type.Optional(IdList),
    statuses: Type.Optional(Type.Array(StringEnum(DELIVERY_STATUSES), { maxItems: 3 })),
    types: Type.Optional(Type.Array(StringEnum(WEBHOOK_EVENTS), { maxItems: WEBHOOK_EVENTS.length })),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

/** A webhook endpoint as every read returns it (the secret is never part of it). */
export const Webhook = Type.Object({
  id: Id,
  organizationId: Id,
  userId: Type.String(),
  url: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
  description: Nullable(Type.String()),
  status: StringEnum(WEBHOOK_STATUSES),
  /** Why the endpoint is disabled (null while enabled). */
  disabledReason: Nullable(Type.String()),
  disabledAt: Nullable(DateTime),
  /** First failed attempt since the last success (null when the last attempt succeeded). */
  failingSince: Nullable(DateTime),
  createdAt: DateTime,
  deletedAt: Type.Optional(DateTime),
});
export type Webhook = Static<typeof Webhook>;

/** The create answer: the record plus its signing secret, shown this once. */
export const WebhookCreated = Type.Object({ ...Webhook.properties, secret: Type.String({ pattern: '^whsec_' }) });

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: DateTime,
  /** The receiver's HTTP status; null when none came (timeout, refused address, network error). */
  responseCode: Nullable(Type.Integer()),
  durationMs: Type.Integer({ minimum: 0 }),
  ok: Type.Boolean(),
  error: Nullable(Type.String()),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

/** One message to one endpoint, with every attempt (GET /webhooks/{id}/deliveries). */
export const Delivery = Type.Object({
  /** The message id, sent as `webhook-id` (the same on every attempt). */
  id: Type.String(),
  webhookId: Id,
  type: StringEnum(WEBHOOK_EVENTS),
  status: StringEnum(DELIVERY_STATUSES),
  attemptCount: Type.Integer({ minimum: 0 }),
  /** Of the last attempt. */
  responseCode: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  lastAttemptAt: Nullable(DateTime),
  /** When the next attempt is due; null once the delivery succeeded or gave up. */
  nextAttemptAt: Nullable(DateTime),
  attempts: Type.Array(DeliveryAttempt),
  /** The body sent: `{type, timestamp, data}`. */
  payload: Type.Object({ type: Type.String(), timestamp: DateTime, data: Type.Unknown() }),
  createdAt: DateTime,
});
export type Delivery = Static<typeof Delivery>;
