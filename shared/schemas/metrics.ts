import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, FreeForm, Id, IdList, ListQueryBase, Name, Nullable, StringEnum, StringList } from './common.js';
import {
  CHECK_TARGETS,
  CHECK_TYPES,
  EVALUATION_PARAMS,
  METRIC_SOURCES,
  type EvaluationParam,
  type MetricSource,
} from '../domain/evaluation/params.js';
import { S, Strings, deletedAt, record } from './answers.js';

export const ModelName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9._:/-]+$',
  description: 'a model name (letters, digits, . _ : / -)',
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true });
const UserGroupIds = Type.Array(Id, { maxItems: 100, uniqueItems: true });

/** The JSON of a whole check (its schema included). */
export const CHECK_MAX_BYTES = 32 * 1024;

/**
 * A check an organization writes: scored in code, 1 or 0. Which fields a type takes
 * is checked by the metric rules (shared/domain/metrics/check-rules.ts), so each message names the
 * field and the type.
 */
export const Check = Type.Object(
  {
    type: StringEnum(CHECK_TYPES, { description: 'what the check tests' }),
    target: Type.Optional(
      StringEnum(CHECK_TARGETS, {
        description: 'the text checked (default actual_output); retrieval_context is its chunks joined by a blank line',
      }),
    ),
    value: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 10_000,
        description:
          'contains, not_contains, equals, starts_with, ends_with: the text; regex: the ECMAScript pattern (at most 1,000 characters)',
      }),
    ),
    values: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'contains_any, contains_all: the texts (1 to 100)',
      }),
    ),
    caseSensitive: Type.Optional(Type.Boolean({ description: 'text types and regex; default true' })),
    min: Type.Optional(Type.Integer({ minimum: 0, description: 'length: the fewest code points allowed (inclusive)' })),
    max: Type.Optional(Type.Integer({ minimum: 0, description: 'length: the most code points allowed (inclusive)' })),
    schema: Type.Optional(
      Type.Union([FreeForm({ maxBytes: CHECK_MAX_BYTES }), Type.Boolean()], {
        description: 'json_schema: a JSON Schema of draft 2020-12',
      }),
    ),
  },
  // A metric item must fit DynamoDB with the rest of the metric at its maxima.
  { additionalProperties: false, maxBytes: CHECK_MAX_BYTES },
);
export type Check = Static<typeof Check>;

export const MetricCreate = Type.Object(
  {
    name: Name,
    source: StringEnum(METRIC_SOURCES),
    evaluationParams: Type.Optional(
      Type.Array(StringEnum(EVALUATION_PARAMS), {
        minItems: 1,
        maxItems: EVALUATION_PARAMS.length,
        uniqueItems: true,
        description: 'required, except with a check (derived from check.target)',
      }),
    ),
    check: Type.Optional(Check),
    judgePrompt: Type.Optional(Type.String({ minLength: 1, maxLength: 50_000 })),
    evaluatorModelName: Type.Optional(ModelName),
    parentMetricId: Type.Optional(Nullable(Id)),
    tags: Type.Optional(Tags),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    documentationUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    areEvalParamsTop: Type.Optional(Type.Boolean()),
    isBeingOptimized: Type.Optional(Type.Boolean()),
    specificationIds: Type.Optional(Type.Array(Id, { maxItems: 100, uniqueItems: true })),
    userGroupIds: Type.Optional(UserGroupIds),
  },
  { additionalProperties: false },
);
export type MetricCreate = Static<typeof MetricCreate>;

/** Fields that change scoring: a PATCH of one of them is a 400 (make a revision instead). */
export const SCORING_FIELDS = [
  'source',
  'evaluationParams',
  'check',
  'judgePrompt',
  'evaluatorModelName',
  'areEvalParamsTop',
  'parentMetricId',
  'isBeingOptimized',
  'specificationIds',
] as const;

export const MetricUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    tags: Type.Optional(Tags),
    documentationUrl: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
    userGroupIds: Type.Optional(UserGroupIds),
    ...Object.fromEntries(SCORING_FIELDS.map((f) => [f, Type.Optional(Type.Unknown())])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MetricUpdate = Static<typeof MetricUpdate> & Partial<Record<(typeof SCORING_FIELDS)[number], unknown>>;

export const MetricListQuery = Type.Object(
  {
    ...ListQueryBase,
    organizationIds: Type.Optional(IdList),
    productIds: Type.Optional(IdList),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    tags: Type.Optional(StringList),
    sources: Type.Optional(Type.Array(StringEnum(METRIC_SOURCES), { maxItems: 7 })),
    specificationIds: Type.Optional(IdList),
    userGroupIds: Type.Optional(IdList),
    includeDefault: Type.Optional(Type.Boolean()),
    includeOwned: Type.Optional(Type.Boolean()),
    includeLegacy: Type.Optional(Type.Boolean()),
    monitorable: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type MetricListQuery = Static<typeof MetricListQuery>;

/** A metric as stored (own dates are internal; reads derive legacyAt/disabledAt). */
export interface StoredMetric {
  id: string;
  metricGroupId: string;
  parentMetricId: string | null;
  organizationId: string | null;
  userId: string;
  name: string;
  evaluationParams: EvaluationParam[];
  source: MetricSource;
  /** The organization's own DETERMINISTIC metrics carry their check; null for every other metric. */
  check?: Check | null;
  judgePrompt: string | null;
  tags: string[];
  description: string;
  documentationUrl: string | null;
  evaluatorModelName: string | null;
  areEvalParamsTop: boolean;
  isBeingOptimized: boolean;
  userGroupIds: string[];
  createdAt: string;
  deletedAt?: string;
  /** The metric's own legacy date: set when a revision supersedes it. */
  ownLegacyAt?: string | null;
  /** The metric's own disabled date (platform operations). */
  ownDisabledAt?: string | null;
}

export const ModelPut = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 100 }),
    providerModelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    creditsPerEvaluation: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    unselectableAt: Type.Optional(Nullable(DateTime)),
    disabledAt: Type.Optional(Nullable(DateTime)),
  },
  { additionalProperties: false },
);
export type ModelPut = Static<typeof ModelPut>;

export const ModelParams = Type.Object({ name: ModelName }, { additionalProperties: false });

export const MetricRecord = record(
  'Metric',
  {
    id: S,
    metricGroupId: Type.String({ description: 'the revision family' }),
    parentMetricId: Nullable(S),
    organizationId: Nullable(Type.String({ description: 'null for a predefined metric' })),
    userId: S,
    name: S,
    evaluationParams: Type.Array(StringEnum(EVALUATION_PARAMS)),
    source: StringEnum(METRIC_SOURCES),
    judgePrompt: Nullable(S),
    tags: Strings,
    description: S,
    documentationUrl: Nullable(S),
    evaluatorModelName: Nullable(S),
    areEvalParamsTop: Type.Boolean(),
    isBeingOptimized: Type.Boolean(),
    specificationIds: Strings,
    userGroupIds: Strings,
    check: Nullable(Check),
    createdAt: DateTime,
    legacyAt: Nullable(DateTime),
    disabledAt: Nullable(DateTime),
    deletedAt,
  },
  'A scoring definition; revisions share a `metricGroupId`.',
);

export const EvaluatorModelRecord = record(
  'EvaluatorModel',
  {
    name: S,
    provider: S,
    providerModelId: S,
    creditsPerEvaluation: Type.Number({ minimum: 0 }),
    unselectableAt: Nullable(DateTime),
    disabledAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  'A platform-wide evaluator (judge) model.',
);

export const CompatibilityEntryRecord = record(
  'MetricCompatibilityEntry',
  {
    id: S,
    name: S,
    isCompatible: Type.Boolean(),
    relevance: StringEnum(['linked', 'matching', 'none'] as const),
    source: Nullable(StringEnum(METRIC_SOURCES)),
    description: Nullable(S),
    incompatibilityReason: Nullable(Type.String({ description: 'non-null exactly when isCompatible is false' })),
  },
  'Whether a metric can score a session.',
);

/** As the API answers it: the type of its response schema. */
export type Metric = Static<typeof MetricRecord>;
/** As the API answers it: the type of its response schema. */
export type EvaluatorModel = Static<typeof EvaluatorModelRecord>;
