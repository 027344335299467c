import type { DecideTools, Decision, PendingCall, SessionEvent, SessionState } from './machine.js';

/**
 * The barge-in half of the PHONE decisions (pure). A session with `bargeInAfterMs` interrupts the
 * agent's answer at every turn after the first but the last: the call records the answer's head,
 * as long as the last answer's latency plus `bargeInAfterMs` (a Chime call is not heard live; the
 * head is where the agent has spoken about that long), and the step hears it as the turn's answer,
 * decides its next message and plays it over the rest of the answer. Chime plays and records one
 * action at a time, so what the agent did while we spoke is only on the stereo call recording,
 * written when the call ends: once the conversation has ended, the step hangs up, measures each
 * barge-in there (shared/voice/barge-in.ts) and writes it on its turn, then the session closes.
 */

/** The latency assumed for a head before any answer was timed (a session written before latencies were kept). */
const DEFAULT_LATENCY_MS = 1000;
/** A recording not there yet is looked for again this much later, this many times in all. */
export const MEASURE_RETRY_MS = 3000;
export const MEASURE_ATTEMPTS = 10;

/** The session barges in (its run's or its case's `bargeInAfterMs`). */
const bargeInMs = (state: SessionState) => state.facts.phone?.bargeInAfterMs;

/** How much of turn `turn`'s answer the call records before the step interrupts it: none for the first and the last turn. */
export function headMs(state: SessionState, turn: number): number | undefined {
  const afterMs = bargeInMs(state);
  if (afterMs === undefined || !state.facts.multi || turn < 2 || turn >= state.facts.maxTurns) return undefined;
  return (state.session._lastLatencyMs ?? DEFAULT_LATENCY_MS) + afterMs;
}

/** What a barging-in session keeps of an utterance it plays: its length, by turn. */
export function utteranceWrite(
  state: SessionState,
  call: Pick<PendingCall, 'turn' | 'utteranceMs'>,
): { _utteranceMs?: number[] } {
  if (bargeInMs(state) === undefined) return {};
  const kept = state.session._utteranceMs ?? [];
  const list = Array.from({ length: Math.max(call.turn, kept.length) }, (_, i) => kept[i] ?? 0);
  list[call.turn - 1] = call.utteranceMs ?? 0;
  return { _utteranceMs: list };
}

/** What a barging-in session keeps of an answer it heard: its latency. */
export function latencyWrite(state: SessionState, latencyMs: number | null): { _lastLatencyMs?: number } {
  return bargeInMs(state) !== undefined && latencyMs !== null ? { _lastLatencyMs: latencyMs } : {};
}

/**
 * A PHONE session whose conversation ended: closed, unless it barged in (it barges in and has a
 * turn after the first): then its call is hung up and its barge-ins measured first. A step, a
 * cancel, the call's hang-up or its deadline measures (the hang-up brings the recording's key);
 * other news of the call changes nothing.
 */
export function phoneEnded(state: SessionState, event: SessionEvent, t: DecideTools): Decision {
  const s = state.session;
  if (bargeInMs(state) === undefined || s.turnCount < 2 || !s._call) return t.close(state);
  const attempt = event.type === 'stepDelivered' ? (event.attempts ?? 0) : 0;
  switch (event.type) {
    case 'stepDelivered':
    case 'cancel':
    case 'deadline':
      return t.stop(state, [{ type: 'measureBargeIns', attempt, transactionId: s._call.transactionId }]);
    case 'hangUp':
      return t.stop(state, [
        {
          type: 'measureBargeIns',
          attempt,
          transactionId: s._call.transactionId,
          ...(event.recordingKey ? { recordingKey: event.recordingKey } : {}),
        },
      ]);
    default:
      return t.stop(state);
  }
}

/**
 * The barge-ins were measured and written on their turns: the session closes. Without a recording
 * yet (Chime writes it after the call ends), the step looks again a little later, MEASURE_ATTEMPTS
 * times in all, then closes without.
 */
export function measured(
  state: SessionState,
  event: Extract<SessionEvent, { type: 'bargeInsMeasured' }>,
  t: DecideTools,
): Decision {
  if (event.found || event.attempt + 1 >= MEASURE_ATTEMPTS) return t.close(state);
  return t.stop(state, [
    { type: 'enqueueStep', seq: state.session._seq, delayMs: MEASURE_RETRY_MS, attempts: event.attempt + 1 },
  ]);
}
