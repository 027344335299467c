import { ENV, optionalEnv } from '../../config/env.js';
import type { Watch } from '../../db/stall-watch.js';

/**
 * The stall watchdog's rule, shared by runs and generating tests: work whose progress has not
 * moved for STALL_MINUTES has its jobs sent again, up to STALL_REDELIVERIES times (the jobs are
 * idempotent); when it still does not move after that, what is left of it fails naming the stall.
 */

export const STALL_REDELIVERIES = 3;
export const STALLED_ERROR = `stalled: no progress after ${STALL_REDELIVERIES} re-deliveries`;
/** The `stoppingReason` of a session the watchdog failed. */
export const STALLED_REASON = 'stalled';
const DEFAULT_STALL_MINUTES = 15;

/** STALL_MINUTES, read at each pass (default 15; a value that is not a positive number is the default). */
export function stallMinutes(): number {
  const raw = Number(optionalEnv(ENV.stallMinutes) ?? DEFAULT_STALL_MINUTES);
  return Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_STALL_MINUTES;
}

/**
 * - `first`: nothing was seen before: remember it, the wait starts now;
 * - `moved`: its progress changed (or, for a run, a turn was recorded) since it was seen: the wait starts again;
 * - `wait`: it has not moved, but for less than STALL_MINUTES;
 * - `redeliver`: stalled: send its jobs again (the wait starts again);
 * - `fail`: stalled after STALL_REDELIVERIES re-deliveries: fail what is left.
 */
export type WatchAction = 'first' | 'moved' | 'wait' | 'redeliver' | 'fail';

/**
 * What to do about work whose progress marker is now `progress`, given what was seen before
 * (`seen`). `lastActivity`, when known, is the latest moment the work did something its marker
 * does not show (a run's last recorded turn): later than the last movement, it counts as one.
 * `next` is the record to write (conditionally on `seen`) before acting; none for `wait`.
 */
export function watchDecision(
  seen: Watch | undefined,
  progress: string,
  now: Date,
  stallMs: number,
  lastActivity?: string,
): { action: WatchAction; next?: Watch } {
  const at = now.toISOString();
  if (!seen) return { action: 'first', next: { progress, movedAt: at, redeliveries: 0 } };
  if (progress !== seen.progress) return { action: 'moved', next: { ...seen, progress, movedAt: at } };
  // A turn stamped a little ahead of this clock (another machine's) counts as now.
  const latest = lastActivity && lastActivity > at ? at : lastActivity;
  const activity = latest && latest > seen.movedAt ? latest : undefined;
  const since = Date.parse(activity ?? seen.movedAt);
  if (now.getTime() - since < stallMs) {
    return activity ? { action: 'moved', next: { ...seen, movedAt: activity } } : { action: 'wait' };
  }
  if (seen.redeliveries < STALL_REDELIVERIES)
    return { action: 'redeliver', next: { ...seen, movedAt: at, redeliveries: seen.redeliveries + 1 } };
  return { action: 'fail', next: { ...seen, movedAt: at } };
}

/** Whether a decision asks to act on the work (and so, for a run, whether its sessions are worth reading first). */
export const acts = (action: WatchAction): boolean => action === 'redeliver' || action === 'fail';
