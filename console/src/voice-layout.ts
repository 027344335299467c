import type { Schema } from './api/client.js';
import { formatMs } from './view-models.js';

/**
 * How a call sounded, for the session and run pages: the session's timeline of who spoke when
 * (both channels' speech segments, overlaps marked) and the run's voice figures, laid out (pure:
 * tested without a browser; voice.ts draws them).
 */

export type SessionVoice = NonNullable<Schema<'Session'>['voice']>;
export type RunVoice = NonNullable<Schema<'Run'>['voice']>;
type Segment = SessionVoice['segments']['agent'][number];

/** A bar of the timeline, in the drawing's units (x and width in px from the lane's left). */
export interface Bar {
  x: number;
  width: number;
  startMs: number;
  endMs: number;
}

export interface Timeline {
  /** The call's length drawn: the end of the last speech, at least 1 s. */
  totalMs: number;
  agent: Bar[];
  user: Bar[];
  /** Where both spoke at once. */
  overlaps: Bar[];
  /** Axis ticks: a round step giving at most ~8 ticks. */
  ticks: { x: number; label: string }[];
}

const TICK_STEPS_MS = [
  250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000,
];

/** The parts of two ordered, disjoint segment lists that overlap. */
export function overlapsOf(a: readonly Segment[], b: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of a)
    for (const t of b) {
      const startMs = Math.max(s.startMs, t.startMs);
      const endMs = Math.min(s.endMs, t.endMs);
      if (startMs < endMs) out.push({ startMs, endMs });
    }
  return out.sort((x, y) => x.startMs - y.startMs);
}

/** `1:05`, `0:07.5` (tenths only under ten seconds of step), from ms. */
export function clockLabel(ms: number, stepMs: number): string {
  const totalSeconds = ms / 1000;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds - minutes * 60;
  const text = stepMs % 1000 === 0 ? String(Math.round(seconds)).padStart(2, '0') : seconds.toFixed(1).padStart(4, '0');
  return `${minutes}:${text}`;
}

/** The timeline of a call's speech, `width` px wide. */
export function timelineOf(segments: SessionVoice['segments'], width: number): Timeline {
  const ends = [...segments.agent, ...segments.user].map((s) => s.endMs);
  const totalMs = Math.max(1000, ...ends);
  const scale = width / totalMs;
  const bar = (s: Segment): Bar => ({
    x: s.startMs * scale,
    width: Math.max(1, (s.endMs - s.startMs) * scale),
    startMs: s.startMs,
    endMs: s.endMs,
  });
  const step = TICK_STEPS_MS.find((ms) => totalMs / ms <= 8) ?? TICK_STEPS_MS[TICK_STEPS_MS.length - 1]!;
  const ticks: Timeline['ticks'] = [];
  for (let ms = 0; ms <= totalMs; ms += step) ticks.push({ x: ms * scale, label: clockLabel(ms, step) });
  return {
    totalMs,
    agent: segments.agent.map(bar),
    user: segments.user.map(bar),
    overlaps: overlapsOf(segments.agent, segments.user).map(bar),
    ticks,
  };
}

/** One sentence for a screen reader: how much each side spoke, and the overlaps. */
export function timelineSummary(voice: SessionVoice): string {
  const overlaps = overlapsOf(voice.segments.agent, voice.segments.user).length;
  return (
    `The agent spoke ${formatMs(voice.agentSpeechMs)} in ${voice.segments.agent.length} stretches, ` +
    `the caller ${formatMs(voice.userSpeechMs)} in ${voice.segments.user.length}; ` +
    (overlaps === 0
      ? 'they never spoke at once.'
      : `they spoke at once ${overlaps} times (${formatMs(voice.overlapMs)}).`)
  );
}

export const ratio = (r: number | null) => (r === null ? '—' : `${Math.round(r * 100)}%`);

/** A session's figures, as fact pairs. */
export function sessionVoiceFacts(voice: SessionVoice): [string, string][] {
  const latencies = [...voice.responseLatencyMs].sort((a, b) => a - b);
  return [
    ['Agent speech', formatMs(voice.agentSpeechMs)],
    ['Caller speech', formatMs(voice.userSpeechMs)],
    ['Talk ratio (agent)', ratio(voice.talkRatio)],
    ['Both at once', formatMs(voice.overlapMs)],
    ['Agent interruptions', String(voice.agentInterruptions)],
    ['Dead air', formatMs(voice.deadAirMs)],
    ['Response latency', latencies.length ? latencies.map((ms) => formatMs(ms)).join(', ') : 'no answer to time'],
  ];
}

/** The rows of a run's voice figures: label, p50, p95 (ms figures formatted, counts and ratios as they are). */
export function runVoiceRows(voice: RunVoice): [string, string, string][] {
  const rows: [string, keyof RunVoice, 'ms' | 'ratio' | 'count'][] = [
    ['Response latency', 'responseLatencyMs', 'ms'],
    ['Agent speech', 'agentSpeechMs', 'ms'],
    ['Caller speech', 'userSpeechMs', 'ms'],
    ['Talk ratio (agent)', 'talkRatio', 'ratio'],
    ['Both at once', 'overlapMs', 'ms'],
    ['Agent interruptions', 'agentInterruptions', 'count'],
    ['Dead air', 'deadAirMs', 'ms'],
  ];
  const show = (v: number, kind: 'ms' | 'ratio' | 'count') =>
    kind === 'ms' ? formatMs(v) : kind === 'ratio' ? ratio(v) : String(v);
  return rows.map(([label, key, kind]) => {
    const spread = voice[key] as { p50: number; p95: number } | null | undefined;
    return spread ? [label, show(spread.p50, kind), show(spread.p95, kind)] : [label, '—', '—'];
  });
}

/** The sentence of a run's barge-in recovery. */
export function bargeInText(recovery: RunVoice['bargeInRecovery']): string {
  if (!recovery) return 'no barge-in';
  const stops = [recovery.p50, recovery.p95].map((ms) => (ms === null ? 'did not stop' : formatMs(ms)));
  return `${ratio(recovery.rate)} stopped within 1 s · stopped after ${stops[0]} (p50), ${stops[1]} (p95)`;
}
