import type { AuthContext } from '../../auth/context.js';
import { getRecord, transact } from '../../db/catalog.js';
import {
  getRule,
  listAlertsOf,
  listRules,
  openAlertItems,
  resolveAlertItems,
  ruleDeleteItem,
  rulePut,
  scoresBetween,
} from '../../db/alerts.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import {
  DEFAULT_ALERT_CONFIDENCE,
  WINDOW_MS,
  type Alert,
  type AlertListQuery,
  type AlertRule,
  type AlertRuleCreate,
  type AlertRuleListQuery,
} from '../../schemas/alerts.js';
import { clock } from '../common/clock.js';
import { monitorEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { anyOf, applyList, type Page } from '../common/list.js';
import { eventWrites, NO_EVENT, publish, type EventWrites } from '../webhooks/events.js';
import { alertDecision } from './rules.js';
import { addScore, emptySums, scorePoint, type Sums } from './statistics.js';
import type { Monitor } from '../../schemas/monitors.js';

/**
 * Alert rules: over the rule's trailing window, when at least `minSessions`
 * sessions of its family were scored and their weighted score (the results' Σwx/Σw) is below
 * `below` (with `confidence: "interval"`: when, from 30 sessions, the upper end of the results'
 * 95% interval is below it), the scanner opens an alert; when, again over at least `minSessions`
 * sessions, the score is back at or above `below`, it resolves it (alertDecision). Each opening and
 * resolution is one conditional transaction with its `alert.opened` / `alert.resolved` event, so
 * each is sent once; an alert keeps the window's score, interval and scored sessions.
 */

export const MAX_RULES_PER_MONITOR = 20;

async function liveMonitor(auth: AuthContext, id: string): Promise<Monitor> {
  return getRecord<Monitor>(monitorEntity, auth.organizationId, id);
}

/** POST /monitors/{id}/alertRules. */
export async function createAlertRule(
  auth: AuthContext,
  monitorId: string,
  input: AlertRuleCreate,
): Promise<AlertRule> {
  const monitor = await liveMonitor(auth, monitorId);
  if (!monitor.metricGroupIds.includes(input.metricGroupId)) {
    throw new ValidationError(
      `metricGroupId ${input.metricGroupId} is not one of the monitor's metricGroupIds (${monitor.metricGroupIds.join(', ')})`,
    );
  }
  if ((await listRules(monitorId, { consistent: true })).length >= MAX_RULES_PER_MONITOR) {
    throw new ConflictError(`a monitor may have at most ${MAX_RULES_PER_MONITOR} alert rules; delete one first`);
  }
  const rule: AlertRule = {
    id: newId('alertRule'),
    monitorId,
    organizationId: auth.organizationId,
    userId: auth.userId,
    metricGroupId: input.metricGroupId,
    window: input.window,
    below: input.below,
    minSessions: input.minSessions,
    confidence: input.confidence ?? DEFAULT_ALERT_CONFIDENCE,
    openAlertId: null,
    createdAt: clock.now().toISOString(),
  };
  await transact([rulePut(rule)]);
  return rule;
}

export async function listAlertRules(
  auth: AuthContext,
  monitorId: string,
  query: AlertRuleListQuery,
): Promise<Page<AlertRule>> {
  await liveMonitor(auth, monitorId);
  return applyList(await listRules(monitorId), query, {
    sortable: ['createdAt', 'metricGroupId', 'window', 'below', 'minSessions'],
  });
}

/** GET /monitors/{id}/alertRules/{ruleId}: the rule, a deleted one with its `deletedAt`. */
export async function getAlertRule(auth: AuthContext, monitorId: string, ruleId: string): Promise<AlertRule> {
  await liveMonitor(auth, monitorId);
  const rule = await getRule(monitorId, ruleId);
  if (!rule) throw new NotFoundError(`alert rule ${ruleId} not found on monitor ${monitorId}`);
  return rule;
}

/** DELETE /monitors/{id}/alertRules/{ruleId}: an open alert of the rule is resolved (`rule_deleted`) and sent. */
export async function deleteAlertRule(
  auth: AuthContext,
  monitorId: string,
  ruleId: string,
): Promise<{ id: string; deletedAt: string }> {
  await liveMonitor(auth, monitorId);
  const rule = await getRule(monitorId, ruleId);
  if (!rule || rule.deletedAt) throw new NotFoundError(`alert rule ${ruleId} not found on monitor ${monitorId}`);
  const deletedAt = clock.now().toISOString();
  if (!rule.openAlertId) {
    await transact([ruleDeleteItem(rule, deletedAt)], (codes) =>
      codes[0] === 'ConditionalCheckFailed'
        ? new ConflictError(`alert rule ${ruleId} changed while this request ran; retry`)
        : undefined,
    );
    return { id: ruleId, deletedAt };
  }
  const writes = await resolvedEvent(rule, rule.openAlertId, {
    resolvedAt: deletedAt,
    resolvedScore: null,
    resolution: 'rule_deleted',
  });
  await transact(
    [
      ...resolveAlertItems(
        rule,
        rule.openAlertId,
        { resolvedAt: deletedAt, resolvedScore: null, resolution: 'rule_deleted' },
        deletedAt,
      ),
      ...writes.items,
    ],
    (codes) =>
      codes[0] === 'ConditionalCheckFailed'
        ? new ConflictError(`alert rule ${ruleId} changed while this request ran; retry`)
        : undefined,
  );
  await publish(writes);
  return { id: ruleId, deletedAt };
}

/** GET /monitors/{id}/alerts: open and resolved alerts, newest first by default. */
export async function listMonitorAlerts(
  auth: AuthContext,
  monitorId: string,
  query: AlertListQuery,
): Promise<Page<Alert>> {
  await liveMonitor(auth, monitorId);
  return applyList(await listAlertsOf(monitorId), query, {
    sortable: ['createdAt', 'openedAt', 'resolvedAt', 'status', 'score'],
    filters: [...anyOf<Alert>(query.statuses, (a) => a.status), ...anyOf<Alert>(query.ruleIds, (a) => a.ruleId)],
  });
}

async function resolvedEvent(
  rule: AlertRule,
  alertId: string,
  set: Pick<Alert, 'resolvedAt' | 'resolvedScore' | 'resolution'>,
): Promise<EventWrites> {
  const alert = (await listAlertsOf(rule.monitorId)).find((a) => a.id === alertId);
  if (!alert) return NO_EVENT;
  return eventWrites(
    rule.organizationId,
    'alert.resolved',
    { ...alert, status: 'RESOLVED', ...set },
    `alert.resolved#${alertId}`,
  );
}

/** The sums of a family's scores over the rule's trailing window ending at `now`. */
export async function windowSums(
  monitorId: string,
  rule: Pick<AlertRule, 'metricGroupId' | 'window'>,
  now: Date,
): Promise<Sums> {
  const from = new Date(now.getTime() - WINDOW_MS[rule.window]).toISOString();
  const scores = await scoresBetween(monitorId, rule.metricGroupId, from, now.toISOString());
  return scores.reduce<Sums>((s, x) => addScore(s, x.score, x.weight), emptySums());
}

/** The scanner's step for one monitor: every rule evaluated over its window; returns what changed. */
export async function evaluateAlertRules(monitor: Monitor, now: Date): Promise<{ opened: number; resolved: number }> {
  const changed = { opened: 0, resolved: 0 };
  for (const rule of await listRules(monitor.id, { consistent: true })) {
    const sums = await windowSums(monitor.id, rule, now);
    const decision = alertDecision(rule, sums, rule.openAlertId !== null);
    if (decision === 'none') continue;
    const score = sums.swx / sums.sw;
    const { confidenceInterval } = scorePoint(sums);
    const at = now.toISOString();
    let writes: EventWrites;
    let items: ReturnType<typeof openAlertItems>;
    if (decision === 'open') {
      const alert: Alert = {
        id: newId('alert', now.getTime()),
        monitorId: monitor.id,
        organizationId: monitor.organizationId,
        ruleId: rule.id,
        metricGroupId: rule.metricGroupId,
        window: rule.window,
        below: rule.below,
        minSessions: rule.minSessions,
        confidence: rule.confidence,
        status: 'OPEN',
        score,
        interval: confidenceInterval,
        scoredSessions: sums.n,
        openedAt: at,
        resolvedAt: null,
        resolvedScore: null,
        resolution: null,
        createdAt: at,
      };
      writes = await eventWrites(monitor.organizationId, 'alert.opened', alert, `alert.opened#${alert.id}`);
      items = openAlertItems(rule, alert);
    } else {
      const set = { resolvedAt: at, resolvedScore: score, resolution: 'recovered' as const };
      writes = await resolvedEvent(rule, rule.openAlertId!, set);
      items = resolveAlertItems(rule, rule.openAlertId!, set);
    }
    try {
      await transact([...items, ...writes.items], (codes) =>
        codes[0] === 'ConditionalCheckFailed' ? new RuleMoved() : undefined,
      );
    } catch (error) {
      if (error instanceof RuleMoved) continue; // another scanner run (or a delete) got there first
      throw error;
    }
    await publish(writes);
    changed[decision === 'open' ? 'opened' : 'resolved']++;
  }
  return changed;
}
class RuleMoved extends Error {}
