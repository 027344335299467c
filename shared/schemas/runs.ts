import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, ListQueryBase, Name, Nullable, StringEnum } from './common.js';

export const RUN_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run that reached one of these changes no more. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Most sessions one run may execute (test cases × repetitions). */
export const MAX_RUN_CASES = 5000;
/** Most times one run may execute each test case (DESIGN §19). */
export const MAX_REPETITIONS = 10;
/** The score a case must reach to pass a metric, when the run names none. */
export const DEFAULT_THRESHOLD = 0.5;

export const RunCreate = Type.Object(
  {
    versionId: Id,
    testId: Type.Optional(Id),
    specificationIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true })),
    testCaseIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true })),
    metricIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 50, uniqueItems: true })),
    name: Type.Optional(Name),
    repetitions: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REPETITIONS,
        description: 'how many times each test case runs, as separate sessions (default 1)',
      }),
    ),
    threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'the score a case must reach to pass a metric (default 0.5)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RunCreate = Static<typeof RunCreate>;

export const RunListQuery = Type.Object(
  {
    ...ListQueryBase,
    productIds: Type.Optional(IdList),
    versionIds: Type.Optional(IdList),
    testIds: Type.Optional(IdList),
    statuses: Type.Optional(Type.Array(StringEnum(RUN_STATUSES), { maxItems: 5 })),
  },
  { additionalProperties: false },
);
export type RunListQuery = Static<typeof RunListQuery>;

const Count = Type.Integer({ minimum: 0 });

export const RunProgress = Type.Object({
  total: Count,
  pending: Count,
  running: Count,
  completed: Count,
  failed: Count,
});
export type RunProgress = Static<typeof RunProgress>;

export const RunMetric = Type.Object({
  metricId: Id,
  name: Type.String(),
  evaluated: Count,
  failed: Count,
  skipped: Count,
  score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  confidenceInterval: Type.Union([Type.Object({ lower: Type.Number(), upper: Type.Number() }), Type.Null()]),
  passRate: Nullable(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'the share of SUCCESS evaluations scoring at least the threshold; null with none, and until the run has finished',
    }),
  ),
  passAllK: Type.Optional(
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'repetitions > 1 only. pass^k: the share of cases that pass in every repetition, over the cases with a SUCCESS evaluation of the metric; null with none, and until the run has finished',
      }),
    ),
  ),
  passAnyK: Type.Optional(
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'repetitions > 1 only. pass@k: the share of cases that pass in at least one repetition; null with none, and until the run has finished',
      }),
    ),
  ),
});
export type RunMetric = Static<typeof RunMetric>;

/** The run record as every read returns it (also the OpenAPI response schema). */
export const Run = Type.Object({
  id: Id,
  organizationId: Id,
  productId: Id,
  versionId: Id,
  userId: Type.String(),
  name: Type.String(),
  testIds: Type.Array(Id),
  specificationIds: Type.Array(Id),
  metricIds: Type.Array(Id),
  repetitions: Type.Integer({ minimum: 1, maximum: MAX_REPETITIONS }),
  threshold: Type.Number({ minimum: 0, maximum: 1 }),
  status: StringEnum(RUN_STATUSES),
  progress: RunProgress,
  metrics: Type.Array(RunMetric),
  error: Nullable(Type.String()),
  createdAt: DateTime,
  startedAt: Nullable(DateTime),
  finishedAt: Nullable(DateTime),
});
export type Run = Static<typeof Run>;
