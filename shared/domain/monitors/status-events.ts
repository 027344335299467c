import type { MonitorStatus } from '../../schemas/monitors.js';
import { ulid } from '../common/ids.js';
import { eventWrites, type EventWrites } from '../webhooks/events.js';
import type { Monitor } from '../../schemas/monitors.js';

/**
 * The `monitor.status_changed` event of one status change, by the scanner (`system`) or a user:
 * written in the transaction of the change, which is conditional on the status it changes from,
 * so each change is sent once.
 */
export function monitorStatusEvent(
  monitor: Monitor,
  to: MonitorStatus,
  changedBy: 'system' | 'user',
): Promise<EventWrites> {
  return eventWrites(
    monitor.organizationId,
    'monitor.status_changed',
    { monitor: { ...monitor, status: to }, previousStatus: monitor.status, status: to, changedBy },
    `monitor.status_changed#${monitor.id}#${ulid()}`,
  );
}
