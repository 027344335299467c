import { WaveFile } from '../../shared/voice/wavefile.js';
import { describe, expect, it } from 'vitest';
import { type Segment, speechSegments } from '../../shared/voice/activity.js';
import {
  deadAirOf,
  interruptionsOf,
  latenciesOf,
  nearestRank,
  overlapOf,
  recordingVoice,
  runVoice,
  type SessionVoice,
  sessionVoice,
  voiceScore,
} from '../../shared/voice/quality.js';
import { RecordingError, readStereoRecording } from '../../shared/voice/recording.js';
import { stereoWav, toneChannel } from '../support/recordings.js';

const channel = toneChannel;

const seg = (startMs: number, endMs: number): Segment => ({ startMs, endMs });

describe('voice activity', () => {
  it('finds speech in 20 ms frames at 8 and 16 kHz, to the frame', () => {
    for (const rate of [8000, 16000]) {
      const samples = channel(rate, 5000, [
        [1000, 2000],
        [3000, 3500],
      ]);
      expect(speechSegments(samples, rate)).toEqual([seg(1000, 2000), seg(3000, 3500)]);
    }
  });

  it('merges gaps under 300 ms and keeps a gap of 300 ms', () => {
    const merged = channel(8000, 4000, [
      [0, 500],
      [780, 1200],
    ]);
    expect(speechSegments(merged, 8000)).toEqual([seg(0, 1200)]);
    const apart = channel(8000, 4000, [
      [0, 500],
      [800, 1200],
    ]);
    expect(speechSegments(apart, 8000)).toEqual([seg(0, 500), seg(800, 1200)]);
  });

  it('drops segments under 100 ms after merging, and keeps one of 100 ms', () => {
    const samples = channel(8000, 4000, [
      [500, 580],
      [1000, 1100],
      [2000, 2060],
      [2200, 2260],
    ]);
    // 2000–2060 and 2200–2260 merge into 2000–2260 (a gap of 140 ms), long enough to stay.
    expect(speechSegments(samples, 8000)).toEqual([seg(1000, 1100), seg(2000, 2260)]);
  });

  it('takes a frame at RMS 200 for speech and one just under it for silence', () => {
    const at = (rms: number) => {
      const s = new Int16Array(8000).fill(0);
      // A square wave of ±rms has RMS rms.
      for (let i = 2080; i < 4000; i++) s[i] = i % 2 ? rms : -rms;
      return speechSegments(s, 8000);
    };
    expect(at(200)).toEqual([seg(260, 500)]);
    expect(at(199)).toEqual([]);
  });
});

describe('voice figures', () => {
  it('counts talk, overlap, interruptions, dead air and latencies exactly', () => {
    const agent = [seg(0, 2000), seg(2500, 3000), seg(4300, 5000), seg(10_000, 11_000)];
    const user = [seg(1500, 2400), seg(3000, 4000), seg(6000, 7000)];
    const v = sessionVoice(agent, user);
    expect(v).toEqual({
      agentSpeechMs: 2000 + 500 + 700 + 1000,
      userSpeechMs: 900 + 1000 + 1000,
      talkRatio: 4200 / (4200 + 2900),
      overlapMs: 500,
      // 2500 starts while 1500–2400 is over: no; 4300 while 3000–4000 is over: no. None.
      agentInterruptions: 0,
      // Gaps where neither speaks: 5000–6000 (1 s), 7000–10000 (3 s, not over 3 s): none counted.
      deadAirMs: 0,
      // 1500–2400 → 2500 (100); 3000–4000 → 4300 (300); 6000–7000 → 10000 (3000).
      responseLatencyMs: [100, 300, 3000],
    } satisfies SessionVoice);
  });

  it('an agent segment starting 300 ms or more into the caller’s speech is an interruption, earlier is not', () => {
    const user = [seg(1000, 3000)];
    expect(interruptionsOf([seg(1300, 1500)], user)).toBe(1);
    expect(interruptionsOf([seg(1299, 1500)], user)).toBe(0);
    expect(interruptionsOf([seg(3000, 3500)], user)).toBe(0);
    expect(interruptionsOf([seg(500, 2000)], user)).toBe(0);
  });

  it('sums only silences longer than 3 s, between the first and the last speech', () => {
    expect(deadAirOf([seg(0, 1000), seg(4000, 5000)], [seg(9000, 9500)])).toBe(4000);
    expect(deadAirOf([seg(0, 1000), seg(4001, 5000)], [])).toBe(3001);
    expect(deadAirOf([seg(0, 6000)], [seg(1000, 2000), seg(5000, 5500)])).toBe(0);
    expect(deadAirOf([], [])).toBe(0);
  });

  it('counts a latency only when the agent answers after the caller ends and before the caller speaks again', () => {
    expect(latenciesOf([seg(2000, 2500)], [seg(0, 1000), seg(1500, 1800)])).toEqual([200]);
    expect(latenciesOf([seg(500, 2500)], [seg(0, 1000)])).toEqual([]);
    expect(latenciesOf([seg(1000, 2500)], [seg(0, 1000)])).toEqual([0]);
  });

  it('overlap of interleaved segments', () => {
    expect(overlapOf([seg(0, 10), seg(20, 30)], [seg(5, 25)])).toBe(10);
    expect(overlapOf([seg(0, 100)], [seg(10, 20), seg(30, 40), seg(90, 200)])).toBe(30);
  });

  it('turn latencies replace the derived ones when the call had turns', () => {
    expect(sessionVoice([seg(0, 100)], [], [420, 380]).responseLatencyMs).toEqual([420, 380]);
    expect(sessionVoice([], []).talkRatio).toBeNull();
  });

  it('reads a stereo recording (agent left, caller right) and gives its figures, PCM and μ-law, 8 and 16 kHz', () => {
    for (const rate of [8000, 16000])
      for (const depth of ['16', '8m'] as const) {
        const left = channel(rate, 12_000, [
          [0, 2000],
          [2500, 3000],
        ]);
        const right = channel(rate, 12_000, [
          [1500, 2400],
          [7000, 8000],
        ]);
        const v = recordingVoice(readStereoRecording(stereoWav(rate, left, right, depth)));
        expect(v).toEqual({
          agentSpeechMs: 2500,
          userSpeechMs: 1900,
          talkRatio: 2500 / 4400,
          overlapMs: 500,
          agentInterruptions: 0,
          deadAirMs: 4000,
          responseLatencyMs: [100],
        });
      }
  });
});

describe('a recording that cannot be read', () => {
  const fail = (bytes: Uint8Array) => {
    try {
      readStereoRecording(bytes);
    } catch (e) {
      expect(e).toBeInstanceOf(RecordingError);
      return (e as Error).message;
    }
    throw new Error('read');
  };

  it('says why: empty, not WAV, mono, another rate, another encoding, no audio, over 2 hours', () => {
    expect(fail(new Uint8Array())).toBe('the recording is empty');
    expect(fail(new TextEncoder().encode('input,expectedOutput\nhello,hi\n'))).toBe('the recording is not a WAV file');
    const mono = new WaveFile();
    mono.fromScratch(1, 8000, '16', new Int16Array(800));
    expect(fail(mono.toBuffer())).toMatch(/must be stereo .*it has 1 channel$/);
    const cd = new WaveFile();
    cd.fromScratch(2, 44_100, '16', [new Int16Array(10), new Int16Array(10)]);
    expect(fail(cd.toBuffer())).toBe("the recording's sample rate must be 8000 or 16000 Hz; it is 44100 Hz");
    const float = new WaveFile();
    float.fromScratch(2, 8000, '32f', [new Float64Array(10), new Float64Array(10)]);
    expect(fail(float.toBuffer())).toBe('the recording must be 16-bit PCM, μ-law or A-law');
    expect(fail(stereoWav(8000, new Int16Array(), new Int16Array()))).toBe('the recording holds no audio');
    // A header whose data chunk says 2 hours and a frame: the header alone is read.
    const long = stereoWav(8000, new Int16Array(8), new Int16Array(8));
    new DataView(long.buffer, long.byteOffset).setUint32(40, (7200 * 8000 + 1) * 4, true);
    expect(fail(long)).toBe('the recording is longer than 2 hours');
  });
});

describe('run figures', () => {
  it('nearest-rank percentiles: the value at ⌈p·n⌉', () => {
    expect(nearestRank([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(nearestRank([1, 2, 3, 4], 0.5)).toBe(2);
    expect(
      nearestRank(
        Array.from({ length: 20 }, (_, i) => i + 1),
        0.95,
      ),
    ).toBe(19);
    expect(nearestRank([7], 0.95)).toBe(7);
    expect(nearestRank([], 0.5)).toBeNull();
  });

  it('p50/p95 of every figure over the sessions, latency over every turn, and the interruption rate', () => {
    const s = (agentInterruptions: number, deadAirMs: number, responseLatencyMs: number[]): SessionVoice => ({
      agentSpeechMs: 1000 * (agentInterruptions + 1),
      userSpeechMs: 1000,
      talkRatio: (agentInterruptions + 1) / (agentInterruptions + 2),
      overlapMs: 0,
      agentInterruptions,
      deadAirMs,
      responseLatencyMs,
    });
    const v = runVoice([s(0, 0, [100, 200]), s(2, 5000, [300]), s(0, 0, []), s(1, 4000, [400])]);
    expect(v.interruptionRate).toBe(0.5);
    expect(v.responseLatencyMs).toEqual({ p50: 200, p95: 400 });
    expect(v.agentInterruptions).toEqual({ p50: 0, p95: 2 });
    expect(v.deadAirMs).toEqual({ p50: 0, p95: 5000 });
    expect(v.agentSpeechMs).toEqual({ p50: 1000, p95: 3000 });
    expect(runVoice([])).toMatchObject({ interruptionRate: null, responseLatencyMs: null, talkRatio: null });
  });
});

describe('voice metrics', () => {
  const v = (responseLatencyMs: number[], agentInterruptions = 0, deadAirMs = 0): SessionVoice => ({
    agentSpeechMs: 1,
    userSpeechMs: 1,
    talkRatio: 0.5,
    overlapMs: 0,
    agentInterruptions,
    deadAirMs,
    responseLatencyMs,
  });

  it('voice_latency: 1 up to a p95 of 1,500 ms, then falling to 0 at 5,000 ms; null without an answer', () => {
    expect(voiceScore('voice_latency', v([200, 1500]))).toBe(1);
    expect(voiceScore('voice_latency', v([200, 3250]))).toBe(0.5);
    expect(voiceScore('voice_latency', v([6000]))).toBe(0);
    expect(voiceScore('voice_latency', v([]))).toBeNull();
  });

  it('voice_no_interruptions and voice_dead_air', () => {
    expect(voiceScore('voice_no_interruptions', v([], 0))).toBe(1);
    expect(voiceScore('voice_no_interruptions', v([], 2))).toBe(0);
    expect(voiceScore('voice_dead_air', v([], 0, 0))).toBe(1);
    expect(voiceScore('voice_dead_air', v([], 0, 3500))).toBe(0.65);
    expect(voiceScore('voice_dead_air', v([], 0, 12_000))).toBe(0);
  });
});
