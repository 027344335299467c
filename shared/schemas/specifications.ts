import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, ListQueryBase, Nullable, StringEnum } from './common.js';
import { TEST_TYPES, type TestType } from '../domain/evaluation/params.js';
import { S, Strings, deletedAt, record } from './answers.js';

export const SPECIFICATION_TYPES = ['CAPABILITY', 'INABILITY', 'POLICY'] as const;
export type SpecificationType = (typeof SPECIFICATION_TYPES)[number];

const Variant = Type.String({ minLength: 1, maxLength: 100 });

export const SpecificationCreate = Type.Object(
  {
    productId: Id,
    description: Type.String({ minLength: 1, maxLength: 10_000 }),
    type: StringEnum(SPECIFICATION_TYPES),
    testType: Type.Optional(Nullable(StringEnum(TEST_TYPES))),
    testVariant: Type.Optional(Nullable(Variant)),
  },
  { additionalProperties: false },
);
export type SpecificationCreate = Static<typeof SpecificationCreate>;

export const SpecificationUpdate = Type.Object(
  {
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
    type: Type.Optional(StringEnum(SPECIFICATION_TYPES)),
    testType: Type.Optional(Nullable(StringEnum(TEST_TYPES))),
    testVariant: Type.Optional(Nullable(Variant)),
    productId: Type.Optional(Type.Unknown()),
    metricIds: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SpecificationUpdate = Static<typeof SpecificationUpdate>;

const { names: _names, name: _name, ...listBase } = ListQueryBase;
export const SpecificationListQuery = Type.Object(
  {
    ...listBase,
    productIds: Type.Optional(IdList),
    types: Type.Optional(Type.Array(StringEnum(SPECIFICATION_TYPES), { maxItems: 3 })),
    testTypes: Type.Optional(Type.Array(StringEnum(TEST_TYPES), { maxItems: 3 })),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    metricIds: Type.Optional(IdList),
  },
  { additionalProperties: false },
);
export type SpecificationListQuery = Static<typeof SpecificationListQuery>;

export const MetricLinkBody = Type.Object(
  { metricIds: Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }) },
  { additionalProperties: false },
);
export type MetricLinkBody = Static<typeof MetricLinkBody>;

export interface StoredSpecification {
  id: string;
  organizationId: string;
  productId: string;
  userId: string;
  description: string;
  type: SpecificationType;
  testType: TestType | null;
  testVariant: string | null;
  createdAt: string;
  deletedAt?: string;
}

export const SpecificationRecord = record(
  'Specification',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    description: S,
    type: StringEnum(SPECIFICATION_TYPES),
    testType: Nullable(StringEnum(TEST_TYPES)),
    testVariant: Nullable(S),
    metricIds: Strings,
    createdAt: DateTime,
    deletedAt,
  },
  'A capability, inability or policy of a product, linked to metrics and tests.',
);

export const MetricLinks = record(
  'MetricLinks',
  {
    specificationId: S,
    metricIds: Type.Array(S, { description: 'every metric linked to the specification after the call' }),
  },
  "A specification's linked metrics.",
);

/** As the API answers it: the type of its response schema. */
export type Specification = Static<typeof SpecificationRecord>;
