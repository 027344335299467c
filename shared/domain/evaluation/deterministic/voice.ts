/** The voice metrics: a call's figures (shared/voice/quality.ts `voiceScore`) as a score and what it rests on. */
import { nearestRank, type SessionVoice, type VoiceMetric, voiceScore } from '../../../voice/quality.js';
import { MetricSkippedError, type Finding } from './result.js';

/**
 * `voice` is the session's figures (without segments). None: the session has no recording (a run
 * scores its calls before their recordings end, so a run's voice metrics are skipped: docs/voice.md).
 */
export function voiceFinding(metric: VoiceMetric, voice: unknown): Finding {
  if (!isFigures(voice))
    throw new MetricSkippedError('voice: the session has no voice figures (no recording analysed)');
  const score = voiceScore(metric, voice);
  switch (metric) {
    case 'voice_latency': {
      const n = voice.responseLatencyMs.length;
      if (score === null) throw new MetricSkippedError('voice_latency: no answer of the agent to time');
      const p95 = nearestRank(voice.responseLatencyMs, 0.95)!;
      return {
        score,
        detail: `p95 response latency ${ms(p95)} over ${n} answer${n === 1 ? '' : 's'} (1 up to 1,500 ms)`,
      };
    }
    case 'voice_no_interruptions': {
      const k = voice.agentInterruptions;
      return {
        score: score!,
        detail: k === 0 ? 'the agent interrupted no one' : `the agent interrupted ${k} time${k === 1 ? '' : 's'}`,
      };
    }
    case 'voice_dead_air':
      return {
        score: score!,
        detail:
          voice.deadAirMs === 0
            ? 'no silence over 3 s'
            : `${ms(voice.deadAirMs)} of silences over 3 s (0 from 10,000 ms)`,
      };
  }
}

const ms = (v: number) => `${Math.round(v).toLocaleString('en-US')} ms`;

function isFigures(v: unknown): v is SessionVoice {
  const f = v as Partial<SessionVoice> | null | undefined;
  return (
    typeof f?.agentInterruptions === 'number' && typeof f.deadAirMs === 'number' && Array.isArray(f.responseLatencyMs)
  );
}
