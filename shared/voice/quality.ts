import { type Segment, speechSegments } from './activity.js';
import type { StereoRecording } from './recording.js';

/**
 * How a call sounds, from the speech segments of its two channels (./activity.ts): who spoke how
 * long, over whom, and how long nobody did. Every figure is in ms but the ratio and the count.
 */

/** An agent segment that starts while a caller's segment has been on this long is an interruption. */
export const INTERRUPTION_AFTER_MS = 300;
/** A silence of both parties longer than this, between the first and the last speech, is dead air. */
export const DEAD_AIR_MS = 3000;

export interface SessionVoice {
  agentSpeechMs: number;
  userSpeechMs: number;
  /** agent / (agent + caller) speech; null when neither spoke. */
  talkRatio: number | null;
  /** Time both spoke at once. */
  overlapMs: number;
  /** Agent segments that start while a caller's segment is on and at least 300 ms old. */
  agentInterruptions: number;
  /** The sum of the silences longer than 3 s between the first and the last speech. */
  deadAirMs: number;
  /** Per turn: from the end of the caller's speech to the start of the agent's answer. */
  responseLatencyMs: number[];
}

export interface Spread {
  p50: number;
  p95: number;
}

export interface RunVoice {
  responseLatencyMs: Spread | null;
  agentSpeechMs: Spread | null;
  userSpeechMs: Spread | null;
  talkRatio: Spread | null;
  overlapMs: Spread | null;
  agentInterruptions: Spread | null;
  deadAirMs: Spread | null;
  /** Sessions with an agent interruption / sessions; null without sessions. */
  interruptionRate: number | null;
}

const total = (segments: readonly Segment[]) => segments.reduce((n, s) => n + (s.endMs - s.startMs), 0);

/** The time two ordered, disjoint segment lists overlap. */
export function overlapOf(a: readonly Segment[], b: readonly Segment[]): number {
  let ms = 0;
  let j = 0;
  for (const s of a) {
    while (j < b.length && b[j]!.endMs <= s.startMs) j++;
    for (let k = j; k < b.length && b[k]!.startMs < s.endMs; k++)
      ms += Math.min(s.endMs, b[k]!.endMs) - Math.max(s.startMs, b[k]!.startMs);
  }
  return ms;
}

/** Agent segments that start while a caller's segment is on and at least INTERRUPTION_AFTER_MS old. */
export function interruptionsOf(agent: readonly Segment[], user: readonly Segment[]): number {
  return agent.filter((a) => user.some((u) => u.startMs <= a.startMs - INTERRUPTION_AFTER_MS && a.startMs < u.endMs))
    .length;
}

/** The sum of the gaps longer than DEAD_AIR_MS where neither party speaks, between the first and the last speech. */
export function deadAirOf(agent: readonly Segment[], user: readonly Segment[]): number {
  const all = [...agent, ...user].sort((x, y) => x.startMs - y.startMs);
  let ms = 0;
  let reach = all[0]?.endMs ?? 0;
  for (const s of all.slice(1)) {
    const gap = s.startMs - reach;
    if (gap > DEAD_AIR_MS) ms += gap;
    reach = Math.max(reach, s.endMs);
  }
  return ms;
}

/**
 * Response latencies of a recording without turns: for each caller segment, the gap from its end
 * to the start of the next agent segment, counted when that segment starts after the caller's
 * ends and before the caller's next segment starts.
 */
export function latenciesOf(agent: readonly Segment[], user: readonly Segment[]): number[] {
  const out: number[] = [];
  user.forEach((u, i) => {
    const next = user[i + 1]?.startMs ?? Number.POSITIVE_INFINITY;
    const answer = agent.find((a) => a.startMs >= u.endMs);
    if (answer && answer.startMs < next) out.push(answer.startMs - u.endMs);
  });
  return out;
}

/** A session's figures from its two channels' segments; `turnLatencies` replaces the derived latencies when the call had turns. */
export function sessionVoice(
  agent: readonly Segment[],
  user: readonly Segment[],
  turnLatencies?: readonly number[],
): SessionVoice {
  const agentSpeechMs = total(agent);
  const userSpeechMs = total(user);
  return {
    agentSpeechMs,
    userSpeechMs,
    talkRatio: agentSpeechMs + userSpeechMs === 0 ? null : agentSpeechMs / (agentSpeechMs + userSpeechMs),
    overlapMs: overlapOf(agent, user),
    agentInterruptions: interruptionsOf(agent, user),
    deadAirMs: deadAirOf(agent, user),
    responseLatencyMs: turnLatencies ? [...turnLatencies] : latenciesOf(agent, user),
  };
}

/** A stereo recording's figures (agent left, caller right). */
export function recordingVoice(recording: StereoRecording, turnLatencies?: readonly number[]): SessionVoice {
  return sessionVoice(
    speechSegments(recording.agent, recording.sampleRate),
    speechSegments(recording.user, recording.sampleRate),
    turnLatencies,
  );
}

/** The nearest-rank p-percentile: the value at position ⌈p·n⌉ of the sorted values; null for none. */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!;
}

function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  return { p50: nearestRank(values, 0.5)!, p95: nearestRank(values, 0.95)! };
}

/** A run's figures over its sessions' (response latency over every turn of every session). */
export function runVoice(sessions: readonly SessionVoice[]): RunVoice {
  const of = (pick: (s: SessionVoice) => number | null) =>
    spread(sessions.map(pick).filter((v): v is number => v !== null));
  return {
    responseLatencyMs: spread(sessions.flatMap((s) => s.responseLatencyMs)),
    agentSpeechMs: of((s) => s.agentSpeechMs),
    userSpeechMs: of((s) => s.userSpeechMs),
    talkRatio: of((s) => s.talkRatio),
    overlapMs: of((s) => s.overlapMs),
    agentInterruptions: of((s) => s.agentInterruptions),
    deadAirMs: of((s) => s.deadAirMs),
    interruptionRate:
      sessions.length === 0 ? null : sessions.filter((s) => s.agentInterruptions > 0).length / sessions.length,
  };
}

/** The predefined voice metrics, scored from a session's figures. */
export const VOICE_METRICS = ['voice_latency', 'voice_no_interruptions', 'voice_dead_air'] as const;
export type VoiceMetric = (typeof VOICE_METRICS)[number];

/**
 * A voice metric's score for a session's figures, 0 to 1; null when the figure it needs is
 * missing (no answer to time).
 * - voice_latency: 1 when the p95 response latency is at most 1,500 ms, else
 *   max(0, 1 − (p95 − 1,500) / 3,500);
 * - voice_no_interruptions: 1 without an agent interruption, else 0;
 * - voice_dead_air: 1 without dead air, else max(0, 1 − deadAirMs / 10,000).
 */
export function voiceScore(metric: VoiceMetric, v: SessionVoice): number | null {
  switch (metric) {
    case 'voice_latency': {
      const p95 = nearestRank(v.responseLatencyMs, 0.95);
      if (p95 === null) return null;
      return p95 <= 1500 ? 1 : Math.max(0, 1 - (p95 - 1500) / 3500);
    }
    case 'voice_no_interruptions':
      return v.agentInterruptions === 0 ? 1 : 0;
    case 'voice_dead_air':
      return v.deadAirMs === 0 ? 1 : Math.max(0, 1 - v.deadAirMs / 10_000);
  }
}
