import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, IdList, ListQueryBase, Name } from './common.js';

export const E164 = Type.String({
  pattern: '^\\+[1-9][0-9]{1,14}$',
  description: 'an E.164 phone number such as +14155550123',
});

export const PhoneConnectionCreate = Type.Object(
  {
    productId: Id,
    name: Name,
    phoneNumber: E164,
    agentSpeaksFirst: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type PhoneConnectionCreate = Static<typeof PhoneConnectionCreate>;

export const PhoneConnectionUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    phoneNumber: Type.Optional(E164),
    agentSpeaksFirst: Type.Optional(Type.Boolean()),
    /** Immutable: accepted by the schema only so the domain can answer "cannot be changed". */
    productId: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PhoneConnectionUpdate = Static<typeof PhoneConnectionUpdate>;

export const PhoneConnectionListQuery = Type.Object(
  { ...ListQueryBase, productIds: Type.Optional(IdList) },
  { additionalProperties: false },
);
export type PhoneConnectionListQuery = Static<typeof PhoneConnectionListQuery>;

export const BatchIds = Type.Object(
  { ids: Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }) },
  { additionalProperties: false },
);
export type BatchIds = Static<typeof BatchIds>;

export const PhoneConnection = Type.Object({
  id: Type.String(),
  organizationId: Type.String(),
  productId: Type.String(),
  userId: Type.String(),
  name: Type.String(),
  phoneNumber: Type.String(),
  agentSpeaksFirst: Type.Boolean(),
  createdAt: Type.String(),
  deletedAt: Type.Optional(Type.String()),
});
export type PhoneConnection = Static<typeof PhoneConnection>;
