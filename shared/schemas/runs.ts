import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, ListQueryBase, Name, Nullable, StringEnum } from './common.js';

export const RUN_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run that reached one of these changes no more. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Most test cases one run may execute. */
export const MAX_RUN_CASES = 5000;

export const RunCreate = Type.Object(
  {
    versionId: Id,
    testId: Type.Optional(Id),
    specificationIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true })),
    testCaseIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true })),
    metricIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 50, uniqueItems: true })),
    name: Type.Optional(Name),
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
  status: StringEnum(RUN_STATUSES),
  progress: RunProgress,
  metrics: Type.Array(RunMetric),
  error: Nullable(Type.String()),
  createdAt: DateTime,
  startedAt: Nullable(DateTime),
  finishedAt: Nullable(DateTime),
});
export type Run = Static<typeof Run>;
