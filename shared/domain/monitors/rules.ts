import type { MonitorStatus } from '../../schemas/monitors.js';
import { SYSTEM_STATUSES } from '../../schemas/monitors.js';
import type { AlertRule } from '../../schemas/alerts.js';
import { scorePoint, type Sums } from './statistics.js';
import type { Monitor } from '../../schemas/monitors.js';

export const FAILING_ATTEMPTS = 5;

export interface ScanFacts {
  /** The monitor's spend (spent + pending) this cycle. */
  monitorUsed: number;
  /** The organization's monthly credits (null = unlimited) and spend this cycle. */
  orgMonthlyCredits: number | null;
  orgUsed: number;
  /** The newest attempts since the last user status write, newest first. */
  attemptsSinceUserWrite: { ok: boolean }[];
}

/**
 * The scanner's status rules, in their order: CAPPED, NO_CREDITS, FAILING, else a
 * system-set status returns to ACTIVE. PAUSED is the user's and is left alone.
 */
export function desiredStatus(monitor: Pick<Monitor, 'status' | 'monthlyCreditCap'>, facts: ScanFacts): MonitorStatus {
  if (monitor.status === 'PAUSED') return 'PAUSED';
  if (monitor.monthlyCreditCap !== null && facts.monitorUsed >= monitor.monthlyCreditCap) return 'CAPPED';
  if (facts.orgMonthlyCredits !== null && facts.orgUsed >= facts.orgMonthlyCredits) return 'NO_CREDITS';
  const recent = facts.attemptsSinceUserWrite.slice(0, FAILING_ATTEMPTS);
  if (recent.length === FAILING_ATTEMPTS && recent.every((a) => !a.ok)) return 'FAILING';
  if (SYSTEM_STATUSES.includes(monitor.status)) return 'ACTIVE';
  return monitor.status;
}

/** The UTC days of a results window: today − (days − 1) … today. */
export function windowDays(now: Date, days: number): string[] {
  const out: string[] = [];
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * 86_400_000;
  for (let i = 0; i < days; i++) out.push(new Date(start + i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

export type AlertDecision = 'open' | 'resolve' | 'none';

/**
 * An alert rule on one window's sums: with at least `minSessions` sessions scored, an open alert
 * resolves when the weighted score (Σwx / Σw) is at or above `below`; fewer sessions decide nothing.
 * A closed rule opens an alert, by its `confidence` (point when absent):
 * - `point`: when the weighted score is below `below`;
 * - `interval`: when the window has an interval (at least MIN_SESSIONS_FOR_INTERVAL sessions, see
 *   scorePoint: the results route's 95% interval) and its upper end is below `below`.
 */
export function alertDecision(
  rule: Pick<AlertRule, 'below' | 'minSessions'> & Partial<Pick<AlertRule, 'confidence'>>,
  sums: Sums,
  isOpen: boolean,
): AlertDecision {
  if (sums.n < rule.minSessions || sums.sw <= 0) return 'none';
  const score = sums.swx / sums.sw;
  if (isOpen) return score >= rule.below ? 'resolve' : 'none';
  if (rule.confidence === 'interval') {
    const interval = scorePoint(sums).confidenceInterval;
    return interval !== null && interval.upper < rule.below ? 'open' : 'none';
  }
  return score < rule.below ? 'open' : 'none';
}
