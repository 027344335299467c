import { MERGE_GAP_MS, type Segment, speechSegments } from './activity.js';
import { nearestRank } from './quality.js';

/**
 * Barge-in, measured on a call's stereo recording (the agent left, our caller right) with the
 * voice-activity rule of ./activity.ts (20 ms frames, speech from an RMS of 200, gaps under 300 ms
 * closed, segments under 100 ms dropped). Our channel holds only our utterances, one after another,
 * each as long as its audio: utterance n+1 interrupts the agent's answer to utterance n when the
 * agent's channel is speaking as it starts. Every time is in ms.
 *
 * - `atMs`: from the start of that answer (the agent's first speech after utterance n ended, or
 *   its end if the agent was still speaking then) to the start of utterance n+1;
 * - `agentStoppedAfterMs`: from the start of utterance n+1 to the agent's channel going silent for
 *   300 ms (the end of the agent's speech under way, which the activity rule follows with at least
 *   300 ms of silence); null when that is more than 3 s later, or the recording ends first.
 */

/** An agent that is still speaking this long after we started did not stop: its stop is null. */
export const STOP_WINDOW_MS = 3000;
/** A barge-in the agent stopped for within this long counts as recovered (the run's rate). */
export const RECOVERED_WITHIN_MS = 1000;
/** The agent has stopped once its channel is this long silent: the activity rule's merge gap. */
export const SILENT_FOR_MS = MERGE_GAP_MS;

export interface BargeIn {
  atMs: number;
  agentStoppedAfterMs: number | null;
}

export interface BargeInRecovery {
  /** Barge-ins the agent stopped for within RECOVERED_WITHIN_MS / barge-ins. */
  rate: number;
  /** Nearest-rank percentiles of agentStoppedAfterMs, a null counting as never: null when the rank falls on one. */
  p50: number | null;
  p95: number | null;
}

/**
 * Where each utterance's speech lies on our channel, in order: an utterance starts with the first
 * segment after the previous one, and holds the segments that start within its audio's length
 * (`utteranceMs`, one per utterance played). Speech of one utterance never reaches the next: an
 * answer lies between them.
 */
export function utteranceSpans(user: readonly Segment[], utteranceMs: readonly number[]): Segment[] {
  const spans: Segment[] = [];
  let next = 0;
  for (const ms of utteranceMs) {
    const first = user[next];
    if (!first) break;
    const span = { ...first };
    for (next++; next < user.length && user[next]!.startMs < first.startMs + ms; next++)
      span.endMs = Math.max(span.endMs, user[next]!.endMs);
    spans.push(span);
  }
  return spans;
}

/**
 * The barge-ins of turns `turns` (a turn n from 2 on: its answer interrupted by utterance n+1),
 * from the two channels' segments, the utterances' lengths and the recording's length. A turn
 * whose agent was silent when utterance n+1 started, or that had no utterance after it, has none.
 */
export function bargeInsOf(
  agent: readonly Segment[],
  user: readonly Segment[],
  utteranceMs: readonly number[],
  turns: readonly number[],
  recordingMs: number,
): Map<number, BargeIn> {
  const spans = utteranceSpans(user, utteranceMs);
  const out = new Map<number, BargeIn>();
  for (const turn of turns) {
    const ours = spans[turn - 1];
    const interruption = spans[turn];
    if (turn < 2 || !ours || !interruption) continue;
    const at = interruption.startMs;
    const speaking = agent.find((a) => a.startMs <= at && at < a.endMs);
    if (!speaking) continue;
    // The answer's first speech after our utterance ended (`speaking` itself, at the latest).
    const answer = agent.find((a) => a.endMs > ours.endMs)!;
    const stop = speaking.endMs - at;
    const stopped = stop <= STOP_WINDOW_MS && recordingMs - speaking.endMs >= SILENT_FOR_MS;
    out.set(turn, {
      atMs: at - Math.max(ours.endMs, answer.startMs),
      agentStoppedAfterMs: stopped ? stop : null,
    });
  }
  return out;
}

/** The barge-ins of turns `turns` on a stereo recording's channels (16-bit samples at `sampleRate`). */
export function recordingBargeIns(
  recording: { sampleRate: number; left: Int16Array; right: Int16Array },
  utteranceMs: readonly number[],
  turns: readonly number[],
): Map<number, BargeIn> {
  const { sampleRate, left, right } = recording;
  return bargeInsOf(
    speechSegments(left, sampleRate),
    speechSegments(right, sampleRate),
    utteranceMs,
    turns,
    (Math.max(left.length, right.length) / sampleRate) * 1000,
  );
}

/** A run's recovery over its barge-ins; null without any. */
export function bargeInRecovery(bargeIns: readonly BargeIn[]): BargeInRecovery | null {
  if (bargeIns.length === 0) return null;
  const stops = bargeIns.map((b) => b.agentStoppedAfterMs ?? Number.POSITIVE_INFINITY);
  const finite = (v: number | null) => (v === null || !Number.isFinite(v) ? null : v);
  return {
    rate: stops.filter((ms) => ms <= RECOVERED_WITHIN_MS).length / stops.length,
    p50: finite(nearestRank(stops, 0.5)),
    p95: finite(nearestRank(stops, 0.95)),
  };
}
