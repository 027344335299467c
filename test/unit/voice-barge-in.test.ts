import { describe, expect, it } from 'vitest';
import type { Segment } from '../../shared/voice/activity.js';
import { decodeStereoWav, encodeStereoWav } from '../../shared/voice/audio.js';
import { bargeInRecovery, bargeInsOf, recordingBargeIns, utteranceSpans } from '../../shared/voice/barge-in.js';

/**
 * Barge-in measured on a call's two channels: where each of our utterances lies, when the next one
 * cut into the agent's answer, and when the agent's channel went silent for 300 ms. Known segments
 * in, exact figures out.
 */

const seg = (startMs: number, endMs: number): Segment => ({ startMs, endMs });

/** A channel of `ms` at `rate` with a 440 Hz tone (RMS ≈ 2121, speech by the activity rule) in each segment. */
function channel(rate: number, ms: number, segments: Array<[number, number]>): Int16Array {
  const out = new Int16Array((rate * ms) / 1000);
  for (const [from, to] of segments)
    for (let i = (rate * from) / 1000; i < (rate * to) / 1000; i++)
      out[i] = Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return out;
}

// Our three utterances (1,000, 1,000 and 800 ms of audio): the second spoken in two segments.
const UTTERANCES = [1000, 1000, 800];
const OURS = [seg(0, 900), seg(3000, 3400), seg(3800, 3900), seg(5200, 5900)];

describe('barge-in on a recording', () => {
  it("groups our channel's segments into utterances by their audio's length", () => {
    expect(utteranceSpans(OURS, UTTERANCES)).toEqual([seg(0, 900), seg(3000, 3900), seg(5200, 5900)]);
    // An utterance not (yet) on the recording has no span.
    expect(utteranceSpans(OURS.slice(0, 1), UTTERANCES)).toEqual([seg(0, 900)]);
  });

  it('measures when the next utterance cut in and when the agent went silent', () => {
    // The answer to utterance 2 starts at 4,400; utterance 3 cuts in at 5,200; the agent stops at 5,400.
    const agent = [seg(1500, 2500), seg(4400, 5400), seg(6500, 7000)];
    expect(bargeInsOf(agent, OURS, UTTERANCES, [1, 2], 8000)).toEqual(
      new Map([[2, { atMs: 800, agentStoppedAfterMs: 200 }]]),
    );
  });

  it('an agent still speaking 3 s after we started did not stop: null', () => {
    const talksOn = [seg(1500, 2500), seg(4400, 8300)];
    expect(bargeInsOf(talksOn, OURS, UTTERANCES, [2], 10_000).get(2)).toEqual({ atMs: 800, agentStoppedAfterMs: null });
    // Exactly 3 s later is within.
    const justIn = [seg(1500, 2500), seg(4400, 8200)];
    expect(bargeInsOf(justIn, OURS, UTTERANCES, [2], 10_000).get(2)?.agentStoppedAfterMs).toBe(3000);
  });

  it('a recording that ends before 300 ms of silence cannot say the agent stopped: null', () => {
    const agent = [seg(1500, 2500), seg(4400, 5400)];
    expect(bargeInsOf(agent, OURS, UTTERANCES, [2], 5600).get(2)?.agentStoppedAfterMs).toBeNull();
    expect(bargeInsOf(agent, OURS, UTTERANCES, [2], 5700).get(2)?.agentStoppedAfterMs).toBe(200);
  });

  it('no barge-in where the agent was silent as we cut in, for the first turn, or without a next utterance', () => {
    const finished = [seg(1500, 2500), seg(4400, 5000)];
    expect(bargeInsOf(finished, OURS, UTTERANCES, [2], 8000).size).toBe(0);
    const agent = [seg(1200, 3500), seg(4400, 5400)];
    // Turn 1 is never measured (only turns after the first barge in); turn 3 has no utterance after it.
    expect([...bargeInsOf(agent, OURS, UTTERANCES, [1, 3], 8000).keys()]).toEqual([]);
  });

  it('an agent still speaking when our utterance ended: its answer starts there', () => {
    const over = [seg(1500, 2500), seg(3600, 5400)];
    expect(bargeInsOf(over, OURS, UTTERANCES, [2], 8000).get(2)).toEqual({ atMs: 1300, agentStoppedAfterMs: 200 });
  });

  it('reads the same figures from a stereo WAV, to the frame', () => {
    const rate = 8000;
    const left = channel(rate, 8000, [
      [1500, 2500],
      [4400, 5400],
    ]);
    const right = channel(rate, 8000, [
      [0, 900],
      [3000, 3400],
      [3800, 3900],
      [5200, 5900],
    ]);
    const recording = decodeStereoWav(encodeStereoWav(left, right));
    expect(recording.sampleRate).toBe(8000);
    expect(recordingBargeIns(recording, UTTERANCES, [2])).toEqual(
      new Map([[2, { atMs: 800, agentStoppedAfterMs: 200 }]]),
    );
  });
});

describe("a run's barge-in recovery", () => {
  it('the share stopped within 1 s, and nearest-rank percentiles where never stopping ranks last', () => {
    const b = (agentStoppedAfterMs: number | null) => ({ atMs: 500, agentStoppedAfterMs });
    expect(bargeInRecovery([b(200), b(100), b(null), b(1500)])).toEqual({ rate: 0.5, p50: 200, p95: null });
    expect(bargeInRecovery([b(1000), b(300)])).toEqual({ rate: 1, p50: 300, p95: 1000 });
    expect(bargeInRecovery([b(null)])).toEqual({ rate: 0, p50: null, p95: null });
    expect(bargeInRecovery([])).toBeNull();
  });
});
