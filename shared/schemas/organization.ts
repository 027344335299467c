import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { ListQueryBase, Name, Nullable, StringEnum } from './common.js';
import { PLANS } from '../auth/context.js';

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
