import { describe, expect, it } from 'vitest';
import { availabilityOf, parameterValues, type EvaluationSources } from '../../shared/domain/evaluation/context.js';
import { DETERMINISTIC_METRICS, MetricSkippedError } from '../../shared/domain/evaluation/deterministic.js';
import { NO_SPEECH, voiceOfRecording, voiceStateOf } from '../../shared/domain/voice/figures.js';
import { NO_RUN_VOICE } from '../../shared/domain/runs/run-voice.js';
import { runView } from '../../shared/domain/runs/run-view.js';
import type { StoredRun } from '../../shared/db/runs.js';
import { MAX_SEGMENTS_PER_CHANNEL, type SessionVoice } from '../../shared/schemas/voice.js';
import type { Session } from '../../shared/schemas/sessions.js';
import { checkRecordingHeader, readStereoRecording, RecordingError } from '../../shared/voice/recording.js';
import {
  callRecording,
  headerSaying,
  KNOWN_CALL_VOICE,
  knownCall,
  monoWav,
  toneChannel,
  stereoWav,
} from '../support/recordings.js';

const seg = (startMs: number, endMs: number) => ({ startMs, endMs });

describe("a session's voice figures as stored", () => {
  it('holds every figure and each channel’s segments, exactly', () => {
    const recording = readStereoRecording(knownCall());
    expect(voiceOfRecording(recording)).toEqual(KNOWN_CALL_VOICE satisfies SessionVoice);
    // A test call's turns give its latencies.
    expect(voiceOfRecording(recording, [420, 380])!.responseLatencyMs).toEqual([420, 380]);
  });

  it('is null for a recording without speech, and keeps the first segments of a channel that has too many', () => {
    expect(voiceOfRecording(readStereoRecording(callRecording(2000, [], [])))).toBeNull();
    // Quiet noise (RMS under 200) is no speech either.
    const hum = toneChannel(8000, 2000, [[0, 2000]], 150);
    expect(voiceOfRecording(readStereoRecording(stereoWav(8000, hum, hum)))).toBeNull();
    const many = Array.from({ length: MAX_SEGMENTS_PER_CHANNEL + 2 }, (_, i) => [i * 400, i * 400 + 100] as const);
    const voice = voiceOfRecording(readStereoRecording(callRecording(many.length * 400, many, [])))!;
    expect(voice.agentSpeechMs).toBe(100 * many.length);
    expect(voice.segments.agent).toHaveLength(MAX_SEGMENTS_PER_CHANNEL);
    expect(voice.segments.agent.at(-1)).toEqual(
      seg((MAX_SEGMENTS_PER_CHANNEL - 1) * 400, (MAX_SEGMENTS_PER_CHANNEL - 1) * 400 + 100),
    );
    expect(voice.segments.truncated).toBe(true);
  });

  it('says where a session’s figures stand', () => {
    const voice = voiceOfRecording(readStereoRecording(callRecording(1000, [[0, 500]], [])))!;
    expect(voiceStateOf({ recordingUri: null, voice: null, voiceError: null })).toEqual({ state: 'none' });
    expect(voiceStateOf({ recordingUri: 's3://b/k', voice: null, voiceError: null })).toEqual({
      state: 'pending',
      recordingUri: 's3://b/k',
    });
    expect(voiceStateOf({ recordingUri: 's3://b/k', voice, voiceError: null })).toEqual({ state: 'ready', voice });
    expect(voiceStateOf({ recordingUri: 's3://b/k', voice: null, voiceError: NO_SPEECH })).toEqual({
      state: 'missing',
      reason: NO_SPEECH,
    });
  });
});

describe("a recording's header, checked from the file's first bytes", () => {
  const fail = (bytes: Uint8Array) => {
    try {
      checkRecordingHeader(bytes);
    } catch (e) {
      expect(e).toBeInstanceOf(RecordingError);
      return (e as Error).message;
    }
    return 'accepted';
  };

  it('accepts a stereo WAV from its first 64 KB and refuses what the decoder would, with its message', () => {
    const long = callRecording(60_000, [[0, 30_000]], [[30_000, 60_000]]);
    expect(long.length).toBeGreaterThan(64 * 1024);
    expect(fail(long.subarray(0, 64 * 1024))).toBe('accepted');
    expect(fail(new Uint8Array())).toBe('the recording is empty');
    expect(fail(new TextEncoder().encode('a,b\n1,2\n'))).toBe('the recording is not a WAV file');
    expect(fail(monoWav(8000, 100))).toBe(
      'the recording must be stereo (the agent left, the caller right); it has 1 channel',
    );
    expect(fail(stereoWav(8000, new Int16Array(), new Int16Array()))).toBe('the recording holds no audio');
    expect(fail(headerSaying(7200))).toBe('accepted');
    expect(fail(headerSaying(7201))).toBe('the recording is longer than 2 hours');
  });
});

describe('the voice metrics', () => {
  const figures = (over: Partial<SessionVoice> = {}) => ({
    agentSpeechMs: 1000,
    userSpeechMs: 1000,
    talkRatio: 0.5,
    overlapMs: 0,
    agentInterruptions: 0,
    deadAirMs: 0,
    responseLatencyMs: [400, 800],
    ...over,
  });

  it('score a session’s figures and say what they rest on', () => {
    expect(DETERMINISTIC_METRICS.voice_latency!({ voice: figures() })).toEqual({
      score: 1,
      reason: 'voice_latency: p95 response latency 800 ms over 2 answers (1 up to 1,500 ms)',
    });
    expect(DETERMINISTIC_METRICS.voice_latency!({ voice: figures({ responseLatencyMs: [3250] }) }).score).toBe(0.5);
    expect(DETERMINISTIC_METRICS.voice_no_interruptions!({ voice: figures({ agentInterruptions: 2 }) })).toEqual({
      score: 0,
      reason: 'voice_no_interruptions: the agent interrupted 2 times',
    });
    expect(DETERMINISTIC_METRICS.voice_dead_air!({ voice: figures({ deadAirMs: 3500 }) })).toEqual({
      score: 0.65,
      reason: 'voice_dead_air: 3,500 ms of silences over 3 s (0 from 10,000 ms)',
    });
  });

  it('skip a session without figures, and latency without an answer to time', () => {
    expect(() => DETERMINISTIC_METRICS.voice_dead_air!({})).toThrow(MetricSkippedError);
    expect(() => DETERMINISTIC_METRICS.voice_latency!({ voice: figures({ responseLatencyMs: [] }) })).toThrow(
      'voice_latency: no answer of the agent to time',
    );
  });

  it('read the `voice` parameter: there with a recording (figures or being computed), missing without one or with a reason', () => {
    const src = (session: Partial<Session>): EvaluationSources => ({
      session: { recordingUri: null, voice: null, voiceError: null, context: null, ...session } as Session,
      turns: [],
      spans: [],
      product: undefined,
      testCase: undefined,
      conversationConnection: undefined,
    });
    expect(availabilityOf(src({}), 'voice')).toEqual({
      available: false,
      reason: 'voice: the session has no recording',
    });
    // A test call's session is scored before its call hangs up and its recording is written.
    expect(availabilityOf(src({ channel: 'PHONE' } as Partial<Session>), 'voice').reason).toMatch(
      /^voice: a test call is recorded until it hangs up, after its session is scored: read the run’s voice figures/,
    );
    expect(availabilityOf(src({ recordingUri: 's3://b/k' }), 'voice')).toEqual({ available: true });
    expect(availabilityOf(src({ recordingUri: 's3://b/k', voiceError: NO_SPEECH }), 'voice')).toEqual({
      available: false,
      reason: `voice: ${NO_SPEECH}`,
    });
    const voice = { ...figures(), segments: { agent: [], user: [], truncated: false } };
    // The value is the figures without the timeline.
    expect(parameterValues(src({ recordingUri: 's3://b/k', voice })).voice).toEqual(figures());
  });
});

describe("a run's voice figures as read", () => {
  it('are every figure, null until computed; a run finished before all figures existed shows its latency and nulls', () => {
    const run = { channel: 'PHONE', metricIds: [], _metricNames: {}, _stats: {}, progress: {} } as unknown as StoredRun;
    expect(runView(run).voice).toEqual({ ...NO_RUN_VOICE, bargeInRecovery: null });
    expect(Object.values(NO_RUN_VOICE).every((v) => v === null)).toBe(true);
    const old = runView({ ...run, _voice: { responseLatencyMs: { p50: 610, p95: 640 } } });
    expect(old.voice).toEqual({ ...NO_RUN_VOICE, responseLatencyMs: { p50: 610, p95: 640 }, bargeInRecovery: null });
    expect(runView({ ...run, channel: 'HTTP' }).voice).toBeUndefined();
  });
});
