import { getRecord, listProductRecords, transact, type TransactItem } from '../../db/catalog.js';
import {
  attachSessionWrites,
  getWaitingEntry,
  queuedEntryWrite,
  skippedSessionWrite,
  touchWaitingEntry,
  waitingEntryRelease,
} from '../../db/monitors.js';
import { getSessionWithInternals, listTurns } from '../../db/sessions.js';
import { enqueue } from '../../queue/evaluation-queue.js';
import { monitorEntity } from '../common/entities.js';
import { describe, isSampled, passesFilters, samplingWeight } from './sampling.js';
import type { Monitor } from '../../schemas/monitors.js';
import type { Session, Turn } from '../../schemas/sessions.js';

type SessionWithMonitors = Session & { _monitorIds?: Set<string> | string[] };

export function monitorIdsOf(session: SessionWithMonitors): string[] {
  return [...(session._monitorIds ?? [])];
}

/**
 * Attachment: each ACTIVE or FAILING monitor of the session's product (and version, if the
 * monitor names one) samples a new production session deterministically. A sampled session is
 * waiting for that monitor, with weight 100 / samplingPercentage fixed now.
 */
export async function onSessionCreated(session: Session): Promise<void> {
  if (!session.isProduction) return;
  const monitors = (
    await listProductRecords<Monitor>(monitorEntity, session.organizationId, [session.productId])
  ).filter(
    (m) =>
      (m.status === 'ACTIVE' || m.status === 'FAILING') && (m.versionId === null || m.versionId === session.versionId),
  );
  const sampled = monitors.filter((m) => isSampled(m.id, session.id, m.samplingPercentage));
  if (sampled.length === 0) return;
  const items = attachSessionWrites(
    session,
    sampled.map((m) => ({ monitorId: m.id, weight: samplingWeight(m.samplingPercentage) })),
  );
  for (let i = 0; i < items.length; i += 99) await transact(items.slice(i, i + 99));
}

/** Each new turn keeps the waiting entries' lastTurnAt current (and sets the description once). */
export async function onTurnsAdded(session: Session, turns: Turn[]): Promise<void> {
  if (!session.isProduction) return; // only production sessions are ever attached
  const ids = monitorIdsOf(await freshSession(session));
  if (ids.length === 0 || turns.length === 0) return;
  const last = turns[turns.length - 1]!;
  const first = turns.find((t) => t.index === 1);
  for (const monitorId of ids) {
    // false: no longer waiting (closed meanwhile)
    await touchWaitingEntry(monitorId, session.id, last.createdAt, first ? describe(first.input) : undefined);
  }
}

async function freshSession(session: Session): Promise<SessionWithMonitors> {
  return (await getSessionWithInternals<SessionWithMonitors>(session.id)) ?? session;
}

export async function onSessionClosed(session: Session): Promise<void> {
  if (!session.isProduction) return;
  const fresh = await freshSession(session);
  for (const monitorId of monitorIdsOf(fresh)) await closeForMonitor(monitorId, fresh);
}

/**
 * Closing for one monitor: the filters run on the session's turns. A session that does not pass
 * is dropped and counted as skipped (no credits); one that passes is queued for evaluation. The
 * waiting entry is removed in the same transaction, so a session closes once per monitor.
 */
export async function closeForMonitor(monitorId: string, session: Session): Promise<'queued' | 'skipped' | 'gone'> {
  const waiting = await getWaitingEntry(monitorId, session.id);
  if (!waiting) return 'gone';
  let monitor: Monitor | undefined;
  try {
    monitor = await getRecord<Monitor>(monitorEntity, session.organizationId, monitorId);
  } catch {
    monitor = undefined;
  }
  const turns = await listTurns(session.id);
  // A paused monitor spends nothing: what closes while it is paused is dropped like a filtered session.
  const passes = monitor !== undefined && monitor.status !== 'PAUSED' && passesFilters(monitor, turns);
  const items: TransactItem[] = [waitingEntryRelease(monitorId, session.id)];
  if (passes) {
    items.push(
      queuedEntryWrite(monitorId, {
        organizationId: session.organizationId,
        sessionId: session.id,
        weight: waiting.weight,
        description: describe(turns[0]?.input),
        turns: turns.length,
      }),
    );
  } else if (monitor) {
    items.push(skippedSessionWrite(monitorId));
  }
  try {
    await transact(items, (codes) =>
      codes[0] === 'ConditionalCheckFailed' ? new Error('closed-elsewhere') : undefined,
    );
  } catch (error) {
    if ((error as Error).message === 'closed-elsewhere') return 'gone';
    throw error;
  }
  if (!passes) return 'skipped';
  await enqueue([{ kind: 'monitor', monitorId, sessionId: session.id }]);
  return 'queued';
}
