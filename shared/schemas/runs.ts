import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, ListQueryBase, Name, Nullable, StringEnum } from './common.js';
import { CorrectedScore } from './review.js';
import { RunVoice } from './voice.js';

export const RUN_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run that reached one of these changes no more. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Most sessions one run may execute (test cases × repetitions). */
export const MAX_RUN_CASES = 5000;
/** Most times one run may execute each test case. */
export const MAX_REPETITIONS = 10;
/** The score a case must reach to pass a metric, when the run names none. */
export const DEFAULT_THRESHOLD = 0.5;
/** How long the agent speaks before a PHONE run's barge-in interrupts it, at least and at most (ms). */
export const MIN_BARGE_IN_MS = 100;
export const MAX_BARGE_IN_MS = 10_000;
/** The longest text (input, output, expected output, reason) a failing case carries, in characters. */
export const MAX_CASE_TEXT = 2000;
/** Most failing cases one page answers. */
export const MAX_FAILING_CASES_LIMIT = 50;

/** How a run reaches the agent: its CONVERSATION endpoint over HTTP, or its phone connection. */
export const RUN_CHANNELS = ['HTTP', 'PHONE'] as const;
export type RunChannel = (typeof RUN_CHANNELS)[number];

export const RunCreate = Type.Object(
  {
    versionId: Id,
    channel: Type.Optional(
      StringEnum(RUN_CHANNELS, {
        description:
          'HTTP calls the version’s CONVERSATION endpoint connection, PHONE dials its phone connection; default HTTP when the version has a CONVERSATION endpoint connection, else PHONE',
      }),
    ),
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
    bargeInAfterMs: Type.Optional(
      Type.Integer({
        minimum: MIN_BARGE_IN_MS,
        maximum: MAX_BARGE_IN_MS,
        description:
          'PHONE runs only: at every turn after the first, once the agent has spoken this long, the service interrupts it with its next message (a test case’s `context` JSON `bargeInAfterMs` wins over it; see docs/voice.md)',
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
  labels: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'GET /runs/{id} only: the run’s sessions with a human label of the metric (from review queues, sampled or picked)',
    }),
  ),
  corrected: Type.Optional(
    Type.Union([CorrectedScore, Type.Null()], {
      description:
        'GET /runs/{id} only: the judge’s score corrected with the human labels of randomly sampled sessions (prediction-powered inference, PPI++); null with fewer than 10 sampled labelled sessions or fewer than 2 others',
    }),
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
  channel: StringEnum(RUN_CHANNELS),
  bargeInAfterMs: Type.Optional(
    Type.Integer({
      minimum: MIN_BARGE_IN_MS,
      maximum: MAX_BARGE_IN_MS,
      description: 'a PHONE run’s barge-in, as it was asked for (absent: none)',
    }),
  ),
  voice: Type.Optional(RunVoice),
  status: StringEnum(RUN_STATUSES),
  progress: RunProgress,
  metrics: Type.Array(RunMetric),
  error: Nullable(Type.String()),
  createdAt: DateTime,
  startedAt: Nullable(DateTime),
  finishedAt: Nullable(DateTime),
});
export type Run = Static<typeof Run>;

// ---------- comparison of two runs ----------

export const COMPARISON_VERDICTS = ['improved', 'regressed', 'no_significant_change', 'not_enough_data'] as const;
export const CHANGED_FILTERS = ['regressed', 'improved', 'unchanged', 'any'] as const;
export const COMPARISON_CASE_SORTS = [
  'difference:asc',
  'difference:desc',
  'testCaseId:asc',
  'testCaseId:desc',
] as const;

const BaseRunId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'the id of the run to compare with (letters, digits, _ and -)',
});

export const ComparisonQuery = Type.Object({ baseRunId: BaseRunId }, { additionalProperties: false });
export type ComparisonQuery = Static<typeof ComparisonQuery>;

export const JunitQuery = Type.Object({ baseRunId: Type.Optional(BaseRunId) }, { additionalProperties: false });
export type JunitQuery = Static<typeof JunitQuery>;
/** GET /runs/{id}/junit answers XML, not JSON. */
export const JunitDocument = Type.String({ description: 'a JUnit XML document' });

export const ComparisonCasesQuery = Type.Object(
  {
    baseRunId: BaseRunId,
    metricIds: Type.Optional(IdList),
    changed: Type.Optional(
      StringEnum(CHANGED_FILTERS, {
        description: 'regressed: difference < 0; improved: > 0; unchanged: = 0; any (the default): every paired case',
      }),
    ),
    sort: Type.Optional(
      StringEnum(COMPARISON_CASE_SORTS, {
        description: 'default difference:asc (the worst regressions first); ties by testCaseId ascending',
      }),
    ),
    limit: ListQueryBase.limit,
    offset: ListQueryBase.offset,
  },
  { additionalProperties: false },
);
export type ComparisonCasesQuery = Static<typeof ComparisonCasesQuery>;

const Score = Nullable(Type.Number({ minimum: 0, maximum: 1 }));
const Figure = (description: string) => Nullable(Type.Number({ description }));

export const MetricComparison = Type.Object({
  metricId: Id,
  name: Type.String(),
  n: Type.Integer({ minimum: 0, description: 'test cases with a score in both runs' }),
  onlyInBase: Type.Integer({ minimum: 0, description: 'test cases only the base run scored' }),
  onlyInRun: Type.Integer({ minimum: 0, description: 'test cases only this run scored' }),
  baseScore: Score,
  score: Score,
  difference: Figure('score − baseScore: the mean of the paired differences'),
  standardError: Figure('s_d / √n; null when n < 2'),
  confidenceInterval: Nullable(
    Type.Array(Type.Number(), {
      minItems: 2,
      maxItems: 2,
      description: '95% interval of the difference, Student t with n − 1 degrees of freedom; null when n < 2',
    }),
  ),
  pValue: Figure('two-sided paired t-test of difference = 0; null when n < 2'),
  adjustedPValue: Figure('Holm-adjusted over the metrics of this comparison; null when n < 2'),
  verdict: StringEnum(COMPARISON_VERDICTS),
  minimumDetectableEffect: Figure(
    '(t₀.₉₇₅ + t₀.₈₀)·standardError: the smallest difference n cases detect 80% of the time',
  ),
});
export type MetricComparison = Static<typeof MetricComparison>;

export const RunComparison = Type.Object(
  {
    runId: Id,
    baseRunId: Id,
    pairedBy: Type.Literal('testCaseId'),
    verdict: StringEnum(COMPARISON_VERDICTS),
    metrics: Type.Array(MetricComparison),
  },
  { title: 'RunComparison' },
);
export type RunComparison = Static<typeof RunComparison>;

export const ComparisonCase = Type.Object(
  {
    testCaseId: Id,
    metricId: Id,
    metricName: Type.String(),
    input: Nullable(Type.String({ description: 'the test case input, first 200 characters' })),
    baseScore: Type.Number({ minimum: 0, maximum: 1 }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    difference: Type.Number({ description: 'score − baseScore' }),
    baseSessionIds: Type.Array(Id),
    sessionIds: Type.Array(Id),
  },
  { title: 'ComparisonCase' },
);
export type ComparisonCase = Static<typeof ComparisonCase>;
