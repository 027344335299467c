import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, ListQueryBase, Name, Nullable, StringEnum } from './common.js';
import { PLANS, ROLES } from '../auth/context.js';
import { Int, S, deletedAt, record } from './answers.js';

export const ApiKeyCreate = Type.Object({ name: Name }, { additionalProperties: false });
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;

export const ApiKeyListQuery = Type.Object(
  { ...ListQueryBase, includeRevoked: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type ApiKeyListQuery = Static<typeof ApiKeyListQuery>;

export const OrganizationUpdate = Type.Object(
  {
    plan: Type.Optional(StringEnum(PLANS)),
    monthlyCredits: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
    name: Type.Optional(Name),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type OrganizationUpdate = Static<typeof OrganizationUpdate>;

export const OrganizationRecord = record(
  'Organization',
  {
    id: S,
    name: S,
    plan: StringEnum(PLANS),
    monthlyCredits: Nullable(Type.Integer({ minimum: 0, description: 'null = unlimited' })),
    createdAt: DateTime,
    cycleStart: Nullable(DateTime),
    spentCredits: Int,
    pendingCredits: Int,
    availableCredits: Nullable(Type.Integer({ minimum: 0, description: 'null when credits are unlimited' })),
  },
  "The caller's organization with the current cycle's spend (the cycle is the UTC calendar month).",
);

const apiKeyFields = {
  id: S,
  organizationId: S,
  userId: S,
  role: StringEnum(ROLES),
  name: S,
  last4: Type.String({ description: 'the last 4 characters of the key' }),
  createdAt: DateTime,
  revokedAt: Type.Optional(DateTime),
  deletedAt,
};
export const ApiKeyRecord = record(
  'ApiKey',
  apiKeyFields,
  'An API key; the key itself is shown only once, at creation.',
);
export const CreatedApiKeyRecord = record(
  'CreatedApiKey',
  { ...apiKeyFields, key: Type.String({ description: 'the key, `evk_…`: shown only in this answer' }) },
  'A new API key with its secret.',
);
export const RevokedApiKey = record(
  'RevokedApiKey',
  { id: S, revokedAt: DateTime, deletedAt: DateTime },
  'A revoked key: it no longer authenticates.',
);
