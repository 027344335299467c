import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, Id, IdList, Nullable, StringEnum } from './common.js';
import { MAX_LIMIT } from './common.js';

/** Alert rules on a monitor's metric families and the alerts they raise. */

export const ALERT_WINDOWS = ['15m', '1h', '6h', '24h'] as const;
export type AlertWindow = (typeof ALERT_WINDOWS)[number];
export const WINDOW_MS: Record<AlertWindow, number> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
};
export const ALERT_STATUSES = ['OPEN', 'RESOLVED'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
/**
 * How sure a rule must be that the score is below `below`: `point` (the window's weighted score is
 * below) or `interval` (the upper end of the window's 95% interval, from 30 scored sessions, is below).
 */
export const ALERT_CONFIDENCES = ['point', 'interval'] as const;
export type AlertConfidence = (typeof ALERT_CONFIDENCES)[number];
export const DEFAULT_ALERT_CONFIDENCE: AlertConfidence = 'point';
const CONFIDENCE_DESCRIPTION =
  'point: an alert opens when the weighted score over the window is below `below`; interval: only when, over at least 30 (and minSessions) scored sessions, the upper end of its 95% interval (the results route’s) is below `below`. Either resolves when the score is back at or above `below`.';

export const AlertRuleCreate = Type.Object(
  {
    metricGroupId: Id,
    window: StringEnum(ALERT_WINDOWS),
    below: Type.Number({ minimum: 0, maximum: 1 }),
    minSessions: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    confidence: Type.Optional(
      StringEnum(ALERT_CONFIDENCES, { description: `${CONFIDENCE_DESCRIPTION} Default point.` }),
    ),
  },
  { additionalProperties: false },
);
export type AlertRuleCreate = Static<typeof AlertRuleCreate>;

export const RuleParams = Type.Object({ id: Id, ruleId: Id }, { additionalProperties: false });

/** The common list parameters these records have (they carry no name). */
const page = {
  ids: Type.Optional(IdList),
  fromCreatedAt: Type.Optional(DateTime),
  toCreatedAt: Type.Optional(DateTime),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  sort: Type.Optional(
    Type.Array(Type.String({ pattern: '^[A-Za-z]+:(asc|desc)$', description: 'field:asc or field:desc' }), {
      maxItems: 5,
    }),
  ),
};
export const AlertRuleListQuery = Type.Object(page, { additionalProperties: false });
export type AlertRuleListQuery = Static<typeof AlertRuleListQuery>;
export const AlertListQuery = Type.Object(
  {
    ...page,
    statuses: Type.Optional(Type.Array(StringEnum(ALERT_STATUSES), { maxItems: 2 })),
    ruleIds: Type.Optional(Type.Array(Id, { maxItems: 100 })),
  },
  { additionalProperties: false },
);
export type AlertListQuery = Static<typeof AlertListQuery>;

export const AlertRule = Type.Object({
  id: Id,
  monitorId: Id,
  organizationId: Id,
  userId: Type.String(),
  metricGroupId: Id,
  window: StringEnum(ALERT_WINDOWS),
  below: Type.Number(),
  minSessions: Type.Integer(),
  /** point for rules stored before rules had a confidence. */
  confidence: StringEnum(ALERT_CONFIDENCES, { description: CONFIDENCE_DESCRIPTION }),
  /** The rule's alert while it is open, else null. */
  openAlertId: Nullable(Type.String()),
  createdAt: DateTime,
  deletedAt: Type.Optional(DateTime),
});
export type AlertRule = Static<typeof AlertRule>;

export const Alert = Type.Object({
  id: Type.String(),
  monitorId: Id,
  organizationId: Id,
  ruleId: Id,
  metricGroupId: Id,
  window: StringEnum(ALERT_WINDOWS),
  below: Type.Number(),
  minSessions: Type.Integer(),
  /** The rule's confidence when the alert opened (point for alerts stored before rules had one). */
  confidence: StringEnum(ALERT_CONFIDENCES),
  status: StringEnum(ALERT_STATUSES),
  /** The weighted score, its 95% interval and the scored sessions over the window when the alert opened. */
  score: Type.Number(),
  interval: Type.Union([Type.Object({ lower: Type.Number(), upper: Type.Number() }), Type.Null()], {
    description:
      'the 95% interval of `score` over the window when the alert opened, as the results route computes it (its `confidenceInterval`); null under 30 scored sessions',
  }),
  scoredSessions: Type.Integer(),
  openedAt: DateTime,
  resolvedAt: Nullable(DateTime),
  /** The score over the window when it resolved (null when its rule was deleted). */
  resolvedScore: Nullable(Type.Number()),
  /** `recovered` (score back at or above `below`) or `rule_deleted`; null while open. */
  resolution: Nullable(StringEnum(['recovered', 'rule_deleted'] as const)),
  createdAt: DateTime,
});
export type Alert = Static<typeof Alert>;
