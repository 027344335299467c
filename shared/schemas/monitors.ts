import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
  DateTime,
  Id,
  IdList,
  ListQueryBase,
  Name,
  Nullable,
  omitProps,
  optionalProps,
  pickProps,
  StringEnum,
} from './common.js';
import { Int, S, Strings, deletedAt, record } from './answers.js';

export const MONITOR_STATUSES = ['ACTIVE', 'PAUSED', 'CAPPED', 'NO_CREDITS', 'FAILING'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];
export const SYSTEM_STATUSES: readonly MonitorStatus[] = ['CAPPED', 'NO_CREDITS', 'FAILING'];
export const FILTER_TARGETS = ['INPUT', 'OUTPUT', 'EITHER'] as const;
export type FilterTarget = (typeof FILTER_TARGETS)[number];

const Query = Nullable(Type.String({ minLength: 1, maxLength: 500 }));
const Target = Nullable(StringEnum(FILTER_TARGETS));
const GroupIds = Type.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true });
const Sampling = Type.Number({ exclusiveMinimum: 0, maximum: 100 });
const Cap = Nullable(Type.Integer({ minimum: 1 }));
// Every status is accepted by the schema so the domain can answer "set only by the system".
const Status = StringEnum(MONITOR_STATUSES);

const settings = {
  name: Name,
  metricGroupIds: GroupIds,
  versionId: Nullable(Id),
  samplingPercentage: Sampling,
  monthlyCreditCap: Cap,
  filterQuery: Query,
  filterTarget: Target,
  excludeQuery: Query,
  excludeTarget: Target,
  status: Status,
};
const REQUIRED = ['name', 'metricGroupIds', 'samplingPercentage'] as const;

export const MonitorCreate = Type.Object(
  { productId: Id, ...pickProps(settings, REQUIRED), ...optionalProps(omitProps(settings, REQUIRED)) },
  { additionalProperties: false },
);
export type MonitorCreate = Static<typeof MonitorCreate>;

export const MonitorUpdate = Type.Object(
  {
    ...optionalProps(settings),
    /** Immutable: accepted by the schema only so the domain can answer "cannot be changed". */
    productId: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MonitorUpdate = Static<typeof MonitorUpdate>;

export const MonitorListQuery = Type.Object(
  {
    ...ListQueryBase,
    productIds: Type.Optional(IdList),
    versionIds: Type.Optional(IdList),
    statuses: Type.Optional(Type.Array(StringEnum(MONITOR_STATUSES), { maxItems: 5 })),
    metricGroupIds: Type.Optional(IdList),
  },
  { additionalProperties: false },
);
export type MonitorListQuery = Static<typeof MonitorListQuery>;

export const ResultsQuery = Type.Object(
  { days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })) },
  { additionalProperties: false },
);

export const MonitorRecord = record(
  'Monitor',
  {
    id: S,
    organizationId: S,
    productId: S,
    name: S,
    metricGroupIds: Strings,
    versionId: Nullable(S),
    userId: S,
    samplingPercentage: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
    monthlyCreditCap: Nullable(Type.Integer({ minimum: 1 })),
    filterQuery: Nullable(S),
    filterTarget: Nullable(StringEnum(FILTER_TARGETS)),
    excludeQuery: Nullable(S),
    excludeTarget: Nullable(StringEnum(FILTER_TARGETS)),
    status: StringEnum(MONITOR_STATUSES),
    statusUserAt: Type.String({ format: 'date-time', description: 'when a user last wrote the status' }),
    createdAt: DateTime,
    deletedAt,
  },
  'Continuous scoring of sampled production sessions with a credit spend cap.',
);

const Interval = Nullable(Type.Object({ lower: Type.Number(), upper: Type.Number() }));
const scorePoint = {
  scoredSessions: Int,
  score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  confidenceInterval: Type.Unsafe<{ lower: number; upper: number } | null>({
    ...Interval,
    description: '95% interval; null below 30 scored sessions',
  }),
  collectingData: Type.Boolean({ description: 'true below 30 scored sessions' }),
};

export const MonitorResultsRecord = record(
  'MonitorResults',
  {
    monitorId: S,
    range: Type.Object({ from: DateTime, to: DateTime, bucketDays: Type.Integer({ minimum: 1 }) }),
    metrics: Type.Array(
      Type.Object({
        metricGroupId: S,
        name: S,
        headline: Type.Object(scorePoint),
        buckets: Type.Array(Type.Object({ ...scorePoint, bucket: DateTime })),
      }),
    ),
    worstMetric: Type.Union([Type.Object({ ...scorePoint, metricGroupId: S, name: S }), Type.Null()]),
    markers: Type.Object({
      metricRevisions: Type.Array(Type.Object({ metricGroupId: S, name: S, metricId: S, at: DateTime })),
      samplingChanges: Type.Array(Type.Object({ at: DateTime, samplingPercentage: Type.Number() })),
    }),
    spend: Type.Object({
      spentCredits: Int,
      pendingCredits: Int,
      capCredits: Nullable(Type.Integer()),
      cycleStart: Nullable(DateTime),
    }),
    sessions: Type.Object({
      scored: Type.Array(
        Type.Object({ sessionId: S, evaluatedAt: DateTime, settledAtTurn: Nullable(Type.Integer()), description: S }),
        { maxItems: 200 },
      ),
      waiting: Type.Array(
        Type.Object({ sessionId: S, lastTurnAt: DateTime, minutesSinceLastTurn: Int, description: S }),
        { maxItems: 100 },
      ),
    }),
  },
  "A monitor's aggregated scores over the window: per family a daily series and a headline.",
);

/** As the API answers it: the type of its response schema. */
export type Monitor = Static<typeof MonitorRecord>;
