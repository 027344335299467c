import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, ListQueryBase, Name, Nullable } from './common.js';
import { S, Strings, deletedAt, record } from './answers.js';

const Text = (max: number, maxBytes?: number) => Type.String({ maxLength: max, ...(maxBytes ? { maxBytes } : {}) });
/**
 * Byte budgets keep the worst-case item under 350 KB: four statement lists of
 * 64 KB, a 40 KB description. A system prompt may take 100,000 characters up to 256 KB of UTF-8.
 */
const Statements = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 100, maxBytes: 64 * 1024 });
const SystemPrompt = Text(100_000, 256 * 1024);

const productFields = {
  name: Name,
  description: Type.Optional(Text(10_000)),
  capabilities: Type.Optional(Statements),
  inabilities: Type.Optional(Statements),
  securityBoundaries: Type.Optional(Statements),
  policies: Type.Optional(Statements),
};

export const ProductCreate = Type.Object(productFields, { additionalProperties: false });
export type ProductCreate = Static<typeof ProductCreate>;

export const ProductUpdate = Type.Object(
  { ...productFields, name: Type.Optional(Name) },
  { additionalProperties: false, minProperties: 1 },
);
export type ProductUpdate = Static<typeof ProductUpdate>;

export const ProductListQuery = Type.Object({ ...ListQueryBase }, { additionalProperties: false });
export type ProductListQuery = Static<typeof ProductListQuery>;

/** As the API answers it: the type of its response schema. */
export type Product = Static<typeof ProductRecord>;

const connectionRefs = {
  conversationEndpointConnectionId: Type.Optional(Nullable(Id)),
  initializationEndpointConnectionId: Type.Optional(Nullable(Id)),
  finalizationEndpointConnectionId: Type.Optional(Nullable(Id)),
  /** The phone connection a PHONE run dials (a live one of the same product). */
  phoneConnectionId: Type.Optional(Nullable(Id)),
};

export const VersionCreate = Type.Object(
  {
    productId: Id,
    name: Name,
    description: Type.Optional(Text(10_000)),
    modelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    systemPrompt: Type.Optional(SystemPrompt),
    ...connectionRefs,
  },
  { additionalProperties: false },
);
export type VersionCreate = Static<typeof VersionCreate>;

export const VersionUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Text(10_000)),
    modelId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    systemPrompt: Type.Optional(Nullable(SystemPrompt)),
    ...connectionRefs,
    productId: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type VersionUpdate = Static<typeof VersionUpdate>;

export const VersionListQuery = Type.Object(
  { ...ListQueryBase, productIds: Type.Optional(IdList) },
  { additionalProperties: false },
);
export type VersionListQuery = Static<typeof VersionListQuery>;

/** As the API answers it: the type of its response schema. */
export type Version = Static<typeof VersionRecord>;

export const ProductRecord = record(
  'Product',
  {
    id: S,
    organizationId: S,
    userId: S,
    name: S,
    description: S,
    capabilities: Strings,
    inabilities: Strings,
    securityBoundaries: Strings,
    policies: Strings,
    createdAt: DateTime,
    deletedAt,
  },
  'An agent product under evaluation.',
);

export const VersionRecord = record(
  'Version',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    name: Type.String({ description: 'unique within the product' }),
    description: S,
    modelId: Nullable(S),
    systemPrompt: Nullable(S),
    conversationEndpointConnectionId: Nullable(S),
    initializationEndpointConnectionId: Nullable(S),
    finalizationEndpointConnectionId: Nullable(S),
    phoneConnectionId: Nullable(Type.String({ description: 'the phone connection a PHONE run dials' })),
    createdAt: DateTime,
    deletedAt,
  },
  'A version of a product: its model, system prompt and the endpoint connections runs call.',
);
