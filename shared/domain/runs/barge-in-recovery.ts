import { runSessionIds, type StoredRun } from '../../db/runs.js';
import { listTurns } from '../../db/sessions.js';
import { type BargeIn, type BargeInRecovery, bargeInRecovery } from '../../voice/barge-in.js';

/**
 * A PHONE run's barge-in recovery (`voice.bargeInRecovery`): over the barge-ins its sessions wrote
 * on their turns (`metadata.bargeIn`), the share the agent stopped for within a second and the
 * nearest-rank p50 and p95 of how long it took (shared/voice/barge-in.ts). Computed once, when the
 * run finishes (every session has measured its call by then); null without any barge-in.
 */
export async function computeBargeInRecovery(run: Pick<StoredRun, 'id'>): Promise<BargeInRecovery | null> {
  const bargeIns: BargeIn[] = [];
  for (const id of await runSessionIds(run.id))
    for (const turn of await listTurns(id)) {
      const bargeIn = bargeInOf(turn.metadata);
      if (bargeIn) bargeIns.push(bargeIn);
    }
  return bargeInRecovery(bargeIns);
}

/** A turn's barge-in, as the session wrote it in its metadata. */
function bargeInOf(metadata: Record<string, unknown> | undefined): BargeIn | undefined {
  const b = metadata?.bargeIn as Partial<BargeIn> | undefined;
  if (typeof b?.atMs !== 'number') return undefined;
  const stop = b.agentStoppedAfterMs;
  return { atMs: b.atMs, agentStoppedAfterMs: typeof stop === 'number' ? stop : null };
}
