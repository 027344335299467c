import { describe, expect, it } from 'vitest';
import {
  bargeInText,
  clockLabel,
  overlapsOf,
  runVoiceRows,
  timelineOf,
  timelineSummary,
} from '../../console/src/voice-layout.js';

/** The console's drawing of a call (who spoke when) and its figures, laid out without a browser. */

const segments = {
  agent: [
    { startMs: 0, endMs: 2000 },
    { startMs: 5000, endMs: 7000 },
  ],
  user: [
    { startMs: 1500, endMs: 3000 },
    { startMs: 6500, endMs: 8000 },
  ],
  truncated: false,
};

describe('a call timeline', () => {
  it('marks where both spoke at once', () => {
    expect(overlapsOf(segments.agent, segments.user)).toEqual([
      { startMs: 1500, endMs: 2000 },
      { startMs: 6500, endMs: 7000 },
    ]);
    expect(overlapsOf(segments.agent, [])).toEqual([]);
  });

  it('lays each segment out to scale over the call, to the end of the last speech', () => {
    const t = timelineOf(segments, 800);
    expect(t.totalMs).toBe(8000);
    expect(t.agent.map((b) => [b.x, b.width])).toEqual([
      [0, 200],
      [500, 200],
    ]);
    expect(t.user.map((b) => [b.x, b.width])).toEqual([
      [150, 150],
      [650, 150],
    ]);
    expect(t.overlaps.map((b) => [b.x, b.width])).toEqual([
      [150, 50],
      [650, 50],
    ]);
    // A round step, at most ~8 ticks: every second here.
    expect(t.ticks.map((k) => k.label)).toEqual([
      '0:00',
      '0:01',
      '0:02',
      '0:03',
      '0:04',
      '0:05',
      '0:06',
      '0:07',
      '0:08',
    ]);
    expect(t.ticks[1]!.x).toBe(100);
  });

  it('draws a silent call over a second, and a very short segment at least a pixel wide', () => {
    const t = timelineOf({ agent: [{ startMs: 10, endMs: 11 }], user: [], truncated: false }, 1000);
    expect(t.totalMs).toBe(1000);
    expect(t.agent[0]!.width).toBe(1);
    expect(timelineOf({ agent: [], user: [], truncated: false }, 100).ticks.length).toBeLessThanOrEqual(9);
  });

  it('labels time as minutes and seconds, tenths when the step needs them', () => {
    expect(clockLabel(65_000, 5000)).toBe('1:05');
    expect(clockLabel(7500, 500)).toBe('0:07.5');
  });

  it('says in one sentence how much each side spoke and how often at once', () => {
    const voice = {
      agentSpeechMs: 4000,
      userSpeechMs: 3000,
      talkRatio: 4 / 7,
      overlapMs: 1000,
      agentInterruptions: 1,
      deadAirMs: 0,
      responseLatencyMs: [],
      segments,
    };
    expect(timelineSummary(voice)).toBe(
      'The agent spoke 4.00 s in 2 stretches, the caller 3.00 s in 2; they spoke at once 2 times (1.00 s).',
    );
  });
});

describe("a run's voice figures", () => {
  it('shows each figure as p50 and p95, ms formatted, ratios as percentages, missing ones as a dash', () => {
    const rows = runVoiceRows({
      responseLatencyMs: { p50: 640, p95: 1800 },
      agentSpeechMs: null,
      userSpeechMs: null,
      talkRatio: { p50: 0.5, p95: 0.62 },
      overlapMs: null,
      agentInterruptions: { p50: 0, p95: 2 },
      deadAirMs: null,
      interruptionRate: 0.25,
      bargeInRecovery: null,
    });
    expect(rows[0]).toEqual(['Response latency', '640 ms', '1.80 s']);
    expect(rows[1]).toEqual(['Agent speech', '—', '—']);
    expect(rows[3]).toEqual(['Talk ratio (agent)', '50%', '62%']);
    expect(rows[5]).toEqual(['Agent interruptions', '0', '2']);
  });

  it('says how the agent recovered from barge-ins, naming a percentile that never stopped', () => {
    expect(bargeInText(null)).toBe('no barge-in');
    expect(bargeInText({ rate: 0.5, p50: 420, p95: null })).toBe(
      '50% stopped within 1 s · stopped after 420 ms (p50), did not stop (p95)',
    );
  });
});
