import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
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
