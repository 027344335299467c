import { readSpend } from '../../db/credits.js';
import { keys } from '../../db/keys.js';
import { idleWaiting, latestAttempts, monitorsOfShard, MONITOR_SHARDS, setMonitorStatusIf } from '../../db/monitors.js';
import { getOrganization } from '../../db/organizations.js';
import { closeSessionWrite, getSession } from '../../db/sessions.js';
import { transact } from '../../db/catalog.js';
import { ENV, optionalEnv } from '../../config/env.js';
import { clock } from '../common/clock.js';
import { cycleOf } from '../accounts/organization.js';
import { sessionLifecycle } from '../sessions/session-lifecycle.js';
import { desiredStatus } from './rules.js';
import { monitorStatusEvent } from './status-events.js';
import { evaluateAlertRules } from './alerts.js';
import { publish } from '../webhooks/events.js';
import { logger, withLogKeys } from '../../observability/logger.js';
import type { Monitor } from '../../schemas/monitors.js';
import type { Session } from '../../schemas/sessions.js';

const IDLE_MINUTES = Number(optionalEnv(ENV.monitorIdleMinutes) ?? 30);

async function used(key: { pk: string; sk: string }): Promise<number> {
  return (await readSpend(key, { consistent: true })).used;
}

/**
 * A status write conditional on the status read, so a user's concurrent PAUSED always wins; the
 * change's `monitor.status_changed` event is written with it.
 */
export async function writeSystemStatus(monitor: Monitor, to: Monitor['status']): Promise<boolean> {
  const writes = await monitorStatusEvent(monitor, to, 'system');
  const done = await setMonitorStatusIf(monitor, to, writes.items);
  if (done) await publish(writes);
  return done;
}

/** Closes a session that had no turn for MONITOR_IDLE_MINUTES (idempotent). */
async function closeIdle(session: Session, at: string): Promise<void> {
  if (session.closedAt === null) {
    try {
      await transact([
        closeSessionWrite(session.id, {
          closedAt: at,
          status: session.status === 'PENDING' ? 'COMPLETED' : session.status,
          stoppingReason: session.stoppingReason ?? 'idle_timeout',
        }),
      ]);
    } catch {
      // closed concurrently: the closing hook below is idempotent
    }
  }
  await sessionLifecycle.closed({ ...session, closedAt: session.closedAt ?? at });
}

export interface ScanReport {
  monitors: number;
  statusChanges: number;
  closedSessions: number;
  alertsOpened: number;
  alertsResolved: number;
}

/**
 * The monitor scanner (every 5 minutes): idle closing, alert rules, then the status rules. Reads monitors from
 * the sharded index, never a Scan; running it twice changes nothing more.
 */
export async function runScanner(now: Date = clock.now()): Promise<ScanReport> {
  const report: ScanReport = { monitors: 0, statusChanges: 0, closedSessions: 0, alertsOpened: 0, alertsResolved: 0 };
  const cutoff = new Date(now.getTime() - IDLE_MINUTES * 60_000).toISOString();
  const cycle = cycleOf(now);
  for (let shard = 0; shard < MONITOR_SHARDS; shard++) {
    for (const monitor of await monitorsOfShard(shard)) {
      if (monitor.deletedAt) continue;
      report.monitors++;
      const keys = { organizationId: monitor.organizationId, monitorId: monitor.id };
      await withLogKeys(keys, () => scanMonitor(monitor, report, now, cutoff, cycle));
    }
  }
  logger.debug('monitor scan done', { ...report });
  return report;
}

/** One monitor's part of the scan; `report` takes its counts. */
async function scanMonitor(monitor: Monitor, report: ScanReport, now: Date, cutoff: string, cycle: string) {
  for (const waiting of await idleWaiting(monitor.id, cutoff)) {
    let session: Session;
    try {
      session = await getSession(monitor.organizationId, String(waiting.sessionId), { includeDeleted: true });
    } catch {
      continue;
    }
    await closeIdle(session, now.toISOString());
    report.closedSessions++;
  }
  // Alert rules read the scores already there, whatever the monitor's status.
  const alerts = await evaluateAlertRules(monitor, now);
  report.alertsOpened += alerts.opened;
  report.alertsResolved += alerts.resolved;
  if (monitor.status === 'PAUSED') return;
  const org = await getOrganization(monitor.organizationId);
  const attempts = (await latestAttempts(monitor.id, 5)).filter((a) => a.at > monitor.statusUserAt);
  const to = desiredStatus(monitor, {
    monitorUsed: monitor.monthlyCreditCap === null ? 0 : await used(keys.monitorSpend(monitor.id, cycle)),
    orgMonthlyCredits: org?.monthlyCredits ?? null,
    orgUsed: org?.monthlyCredits === null || !org ? 0 : await used(keys.orgSpend(monitor.organizationId, cycle)),
    attemptsSinceUserWrite: attempts,
  });
  if (to !== monitor.status && (await writeSystemStatus(monitor, to))) {
    report.statusChanges++;
    logger.info('monitor status changed', { from: monitor.status, to });
  }
}
