import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, FreeForm, Id, IdList, ListQueryBase, Metadata, Name, Nullable, StringEnum } from './common.js';
import { TEST_TYPES } from '../domain/evaluation/params.js';
import { FreeObject, Int, S, Strings, deletedAt, record } from './answers.js';

export const TEST_STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'AUGMENTING', 'EXTENDING', 'CANCELLED'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];
export const NOISE_PROFILES = ['office', 'street', 'car', 'white', 'pink'] as const;
export const NOISE_LEVELS = ['light', 'medium', 'heavy'] as const;

const Uri = Type.String({ minLength: 1, maxLength: 4096 });
const Short = Type.String({ minLength: 1, maxLength: 200 });
/** 50,000 characters up to 64 KB of UTF-8: the worst-case test item stays under 350 KB. */
const Long = Type.String({ maxLength: 50_000, maxBytes: 64 * 1024 });

export const TestCreate = Type.Object(
  {
    productId: Id,
    name: Name,
    type: Type.Optional(StringEnum(TEST_TYPES)),
    models: Type.Optional(Type.Array(Short, { maxItems: 20, uniqueItems: true })),
    groundTruthUri: Type.Optional(Nullable(Uri)),
    uri: Type.Optional(Nullable(Uri)),
    fewShot: Type.Optional(Nullable(Long)),
    languageCode: Type.Optional(Type.String({ minLength: 2, maxLength: 35 })),
    backgroundNoiseProfile: Type.Optional(Nullable(StringEnum(NOISE_PROFILES))),
    backgroundNoiseLevel: Type.Optional(Nullable(StringEnum(NOISE_LEVELS))),
    variants: Type.Optional(Type.Array(Short, { maxItems: 20, uniqueItems: true })),
    customVariantDescription: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 5000 }))),
    strategies: Type.Optional(Type.Array(Short, { maxItems: 20, uniqueItems: true })),
    customUserPersona: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 5000 }))),
    maxTestCases: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    sourceTestId: Type.Optional(Nullable(Id)),
    dataCatalogUri: Type.Optional(Nullable(Uri)),
    metadata: Type.Optional(Metadata),
    specificationId: Type.Optional(Nullable(Id)),
  },
  { additionalProperties: false },
);
export type TestCreate = Static<typeof TestCreate>;

export const TestUpdate = Type.Object(
  { name: Type.Optional(Name), metadata: Type.Optional(Metadata) },
  { additionalProperties: false, minProperties: 1 },
);
export type TestUpdate = Static<typeof TestUpdate>;

/** POST /tests/{id}/extend and /augment. */
export const TestGenerateMore = Type.Object(
  { count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) },
  { additionalProperties: false },
);
export type TestGenerateMore = Static<typeof TestGenerateMore>;

export const TestListQuery = Type.Object(
  {
    ...ListQueryBase,
    productIds: Type.Optional(IdList),
    testCaseIds: Type.Optional(IdList),
    versionIds: Type.Optional(IdList),
    types: Type.Optional(Type.Array(StringEnum(TEST_TYPES), { maxItems: 3 })),
    specificationIds: Type.Optional(IdList),
    statuses: Type.Optional(Type.Array(StringEnum(TEST_STATUSES), { maxItems: 6 })),
    hasLiveSpecification: Type.Optional(Type.Boolean()),
    hasEvaluations: Type.Optional(Type.Boolean()),
    hasTraces: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type TestListQuery = Static<typeof TestListQuery>;

/** Attributes maintained by session, evaluation and span writes (issue: sessions), for list filters. */
export interface TestActivity {
  _versionIds?: Set<string> | string[];
  _hasEvaluations?: boolean;
  _hasTraces?: boolean;
}

const TestInput = Type.Union([Type.String({ maxLength: 250_000 }), FreeForm({ maxBytes: 250_000 })]);

export const TestCaseCreate = Type.Object(
  {
    testId: Id,
    input: Type.Optional(TestInput),
    expectedOutput: Type.Optional(Nullable(Type.String({ maxLength: 250_000 }))),
    expectedTools: Type.Optional(Type.Array(Short, { maxItems: 100 })),
    context: Type.Optional(Nullable(Type.String({ maxLength: 250_000 }))),
    variant: Type.Optional(Nullable(Short)),
    strategy: Type.Optional(Nullable(Short)),
    languageCode: Type.Optional(Type.String({ minLength: 2, maxLength: 35 })),
    goal: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    userPersona: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    scenario: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    stoppingCriterias: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 50 })),
    maxIterations: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100 }))),
  },
  { additionalProperties: false },
);
export type TestCaseCreate = Static<typeof TestCaseCreate>;

export const TestCaseListQuery = Type.Object(
  {
    ...ListQueryBase,
    testIds: Type.Array(Id, { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type TestCaseListQuery = Static<typeof TestCaseListQuery>;

export const StorageUploadQuery = Type.Object(
  {
    fileName: Type.String({ minLength: 1, maxLength: 1000 }),
    contentType: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type StorageUploadQuery = Static<typeof StorageUploadQuery>;

export const StorageResolveQuery = Type.Object(
  { uri: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);

export const TestRecordSchema = record(
  'Test',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    name: S,
    type: StringEnum(TEST_TYPES),
    models: Strings,
    groundTruthUri: Nullable(S),
    uri: Nullable(S),
    error: Nullable(S),
    status: StringEnum(TEST_STATUSES),
    fewShot: Nullable(S),
    languageCode: S,
    backgroundNoiseProfile: Nullable(StringEnum(NOISE_PROFILES)),
    backgroundNoiseLevel: Nullable(StringEnum(NOISE_LEVELS)),
    variants: Strings,
    customVariantDescription: Nullable(S),
    strategies: Strings,
    customUserPersona: Nullable(S),
    maxTestCases: Nullable(Type.Integer()),
    sourceTestId: Nullable(S),
    dataCatalogUri: Nullable(S),
    metadata: FreeObject,
    specificationId: Nullable(S),
    isExtendable: Type.Boolean(),
    testCaseCount: Int,
    createdAt: DateTime,
    deletedAt,
  },
  'A test (dataset): a set of test cases of type QUALITY, RED_TEAMING or SCENARIOS.',
);

export const TestCaseRecord = record(
  'TestCase',
  {
    id: S,
    organizationId: S,
    productId: S,
    testId: S,
    index: Int,
    input: Type.Union([S, FreeObject, Type.Null()]),
    expectedOutput: Nullable(S),
    expectedTools: Strings,
    context: Nullable(S),
    variant: Nullable(S),
    strategy: Nullable(S),
    isAugmented: Type.Boolean({
      description: 'true for a case written by POST /tests/{id}/augment from the test’s existing cases',
    }),
    languageCode: Nullable(S),
    goal: Nullable(S),
    userPersona: Nullable(S),
    scenario: Nullable(S),
    stoppingCriterias: Strings,
    maxIterations: Nullable(Type.Integer()),
    createdAt: DateTime,
    deletedAt,
  },
  'One case of a test.',
);

/** As the API answers it: the type of its response schema. */
export type TestRecord = Static<typeof TestRecordSchema>;
/** As the API answers it: the type of its response schema. */
export type TestCase = Static<typeof TestCaseRecord>;
