import { setTimeout as sleep } from 'node:timers/promises';
import { reserveRateSlot } from '../../db/rate-limits.js';
import type { SlotResult } from './caller/index.js';

/**
 * A run's call on a rate-limited connection takes its start from the connection's token
 * (shared/db/rate-limits.ts reserveRateSlot): the next free slot is reserved, and the job waits
 * for it and calls at that moment: it is woken when its slot comes, not at the next poll, and the
 * slots are back to back, so a busy connection gets its whole rate (less SLOT_SLACK), never more.
 * A slot further away than the job may wait sends the job back on the queue until it is within reach.
 *
 * Why the slack: a call starts when its job wakes, which on a busy machine is a little after its
 * slot. Slots 2% further apart than 60/r s put r slots in 61.2 s, so a call may start up to 1.2 s
 * late and still no 60-second window holds more than r starts; a job that wakes later than
 * MAX_LATE_MS after its slot leaves it unused and reserves another.
 */

/** How much further apart than 60/rateLimit s the slots are. */
export const SLOT_SLACK = 0.02;
/** A job that wakes later than this after its slot does not use it (below 60 s × SLOT_SLACK). */
export const MAX_LATE_MS = 1_000;
/**
 * The longest a job waits in process for its slot: a busy connection keeps at most
 * rateLimit × 5 s / 60 s jobs waiting (they hold Lambda concurrency while they wait).
 */
export const MAX_SLOT_WAIT_MS = 5_000;
/** After a wait this long, the job asks again whether it still may call (the run may have been cancelled). */
const RECHECK_AFTER_MS = 250;
/** Kept free of the job's time for the attempt after the wait, and what follows it. */
const ATTEMPT_MARGIN_MS = 10_000;

/**
 * Slots are reserved this far ahead at the least, so the reservation's own write is done when the
 * slot comes and the call starts on time: three times the writes' recent latency, within bounds.
 */
let writeMs = 50;
const leadMs = () => Math.min(1_000, Math.max(25, 3 * writeMs));

export interface SlotTaking {
  connectionId: string;
  rateLimit: number;
  /** The time left in the job, when known. */
  remainingMs?: () => number;
  /** One attempt's timeout: the wait must leave room for it. */
  attemptMs: number;
  /** Asked after a long wait: false when the call must not start any more (its run was cancelled). */
  stillWanted?: () => Promise<boolean>;
}

/** The `takeSlot` of a run's call: resolves when the call may start (or sends the job back on the queue). */
export function slotTaker(t: SlotTaking): () => Promise<SlotResult> {
  // The limit the token spaces slots by: a little under the connection's, for the slack.
  const spaced = t.rateLimit / (1 + SLOT_SLACK);
  return async () => {
    for (;;) {
      const room = t.remainingMs ? t.remainingMs() - t.attemptMs - ATTEMPT_MARGIN_MS : MAX_SLOT_WAIT_MS;
      const lead = leadMs();
      const horizonMs = Math.max(lead, Math.min(MAX_SLOT_WAIT_MS, room));
      const asked = Date.now();
      const slot = await reserveRateSlot(t.connectionId, spaced, asked, { leadMs: lead, horizonMs });
      writeMs = 0.8 * writeMs + 0.2 * (Date.now() - asked);
      if (!slot.ok) return slot;
      const waited = await waitUntil(slot.at);
      // The slot is spent either way: a call that may no longer start goes back on the queue, where its step sees why.
      if (waited >= RECHECK_AFTER_MS && t.stillWanted && !(await t.stillWanted())) return { ok: false, retryAt: 0 };
      if (Date.now() - slot.at <= MAX_LATE_MS) return { ok: true };
    }
  };
}

/** Waits until the epoch ms `at` (timers may fire a little early: never start before the slot); returns how long it waited. */
async function waitUntil(at: number): Promise<number> {
  const start = Date.now();
  for (let left = at - start; left > 0; left = at - Date.now()) await sleep(left);
  return Date.now() - start;
}
