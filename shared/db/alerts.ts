import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { queryAll, queryPrefix } from './query.js';
import { toRecord } from './records.js';
import { updateOf } from './update.js';
import { DEFAULT_ALERT_CONFIDENCE, type Alert, type AlertRule } from '../schemas/alerts.js';

/** A monitor's alert rules (`ALERTRULE#`) and alerts (`ALERT#`), in the monitor's partition. */

export function rulePut(rule: AlertRule): TransactItem {
  const { openAlertId: _open, ...stored } = rule;
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.alertRule(rule.monitorId, rule.id), entity: 'ALERTRULE', ...stored },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Rules and alerts stored before rules had a `confidence` read as `point` (alerts: with no interval). */
function ruleOf(item: Record<string, unknown>): AlertRule {
  const rule = toRecord<AlertRule>(item);
  return { ...rule, confidence: rule.confidence ?? DEFAULT_ALERT_CONFIDENCE, openAlertId: rule.openAlertId ?? null };
}

function alertOf(item: Record<string, unknown>): Alert {
  const alert = toRecord<Alert>(item);
  return { ...alert, confidence: alert.confidence ?? DEFAULT_ALERT_CONFIDENCE, interval: alert.interval ?? null };
}

export async function getRule(monitorId: string, ruleId: string): Promise<AlertRule | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.alertRule(monitorId, ruleId), ConsistentRead: true }),
  );
  return out.Item ? ruleOf(out.Item) : undefined;
}

/** The live rules of a monitor. */
export async function listRules(monitorId: string, options: { consistent?: boolean } = {}): Promise<AlertRule[]> {
  return (await queryPrefix(`MONITOR#${monitorId}`, 'ALERTRULE#', options)).map(ruleOf).filter((r) => !r.deletedAt);
}

export async function listAlertsOf(monitorId: string): Promise<Alert[]> {
  return (await queryPrefix(`MONITOR#${monitorId}`, 'ALERT#')).map(alertOf);
}

/** Opens the rule's alert: holds only while the rule is live and has none open. */
export function openAlertItems(rule: AlertRule, alert: Alert): TransactItem[] {
  return [
    {
      Update: updateOf(keys.alertRule(rule.monitorId, rule.id), { openAlertId: alert.id }, [], {
        expression: 'attribute_exists(pk) AND attribute_not_exists(openAlertId) AND attribute_not_exists(deletedAt)',
      }),
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...keys.alert(alert.monitorId, alert.id), entity: 'ALERT', ...alert },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/** Resolves the rule's open alert `alert.id` (and, with `deletedAt`, deletes the rule in the same step). */
export function resolveAlertItems(
  rule: AlertRule,
  alertId: string,
  set: Pick<Alert, 'resolvedAt' | 'resolvedScore' | 'resolution'>,
  deletedAt?: string,
): TransactItem[] {
  return [
    {
      Update: updateOf(keys.alertRule(rule.monitorId, rule.id), deletedAt ? { deletedAt } : {}, ['openAlertId'], {
        expression: 'openAlertId = :open AND attribute_not_exists(deletedAt)',
        values: { ':open': alertId },
      }),
    },
    {
      Update: updateOf(keys.alert(rule.monitorId, alertId), { status: 'RESOLVED', ...set }, [], {
        expression: 'attribute_exists(pk)',
      }),
    },
  ];
}

/** Deletes a rule without an open alert. */
export function ruleDeleteItem(rule: AlertRule, deletedAt: string): TransactItem {
  return {
    Update: updateOf(keys.alertRule(rule.monitorId, rule.id), { deletedAt }, [], {
      expression: 'attribute_exists(pk) AND attribute_not_exists(openAlertId) AND attribute_not_exists(deletedAt)',
    }),
  };
}

/**
 * The per-session scores of one family scored in [from, to]: the SCORE items of the UTC days the
 * window touches (at most two for 24 hours), filtered to the window by their evaluatedAt.
 */
export async function scoresBetween(
  monitorId: string,
  groupId: string,
  from: string,
  to: string,
): Promise<{ score: number; weight: number }[]> {
  const days: string[] = [];
  for (let t = Date.parse(from.slice(0, 10)); t <= Date.parse(to); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  const out: { score: number; weight: number }[] = [];
  for (const day of days) {
    const items = await queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      FilterExpression: 'evaluatedAt BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': `MONITOR#${monitorId}`,
        ':sk': `SCORE#${day}#${groupId}#`,
        ':from': from,
        ':to': to,
      },
      ConsistentRead: true,
    });
    for (const i of items) out.push({ score: Number(i.score), weight: Number(i.weight) });
  }
  return out;
}
