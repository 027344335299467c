import { speechSegments, type Segment } from '../../voice/activity.js';
import { sessionVoice } from '../../voice/quality.js';
import type { StereoRecording } from '../../voice/recording.js';
import { MAX_SEGMENTS_PER_CHANNEL, type SessionVoice } from '../../schemas/voice.js';
import type { Session } from '../../schemas/sessions.js';

/**
 * A session's voice figures as stored (pure): the figures of shared/voice/quality.ts from the
 * recording's two channels, and each channel's first speech segments for a timeline of who spoke
 * when. What a session's `voice` and `voiceError` say about where its figures stand.
 */

/** Why a readable recording has no figures. */
export const NO_SPEECH = 'the recording holds no speech';
/** Why a recording outside the service's bucket has none: the job reads the service's storage only. */
export const NOT_IN_STORAGE =
  'voice figures are computed only for a recording uploaded to this service’s storage (GET /storage/generate-put-presigned-url)';

/**
 * The figures of a stereo recording (agent left, user right), with `turnLatencies` as the response
 * latencies when the call had measured turns; null when neither channel holds speech.
 */
export function voiceOfRecording(recording: StereoRecording, turnLatencies?: readonly number[]): SessionVoice | null {
  const agent = speechSegments(recording.agent, recording.sampleRate);
  const user = speechSegments(recording.user, recording.sampleRate);
  if (agent.length === 0 && user.length === 0) return null;
  const cap = (segments: Segment[]) =>
    segments.slice(0, MAX_SEGMENTS_PER_CHANNEL).map((s) => ({ startMs: s.startMs, endMs: s.endMs }));
  return {
    ...sessionVoice(agent, user, turnLatencies),
    segments: {
      agent: cap(agent),
      user: cap(user),
      truncated: agent.length > MAX_SEGMENTS_PER_CHANNEL || user.length > MAX_SEGMENTS_PER_CHANNEL,
    },
  };
}

/** Where a session's figures stand: none (no recording), being computed, there, or missing with a reason. */
export type VoiceState =
  | { state: 'none' }
  | { state: 'pending'; recordingUri: string }
  | { state: 'ready'; voice: SessionVoice }
  | { state: 'missing'; reason: string };

/**
 * A session with a recording has figures or the reason it has none once its job ran; until then,
 * both are null (also on a session stored before voice figures existed, which the job analyses when asked).
 */
export function voiceStateOf(session: Pick<Session, 'recordingUri' | 'voice' | 'voiceError'>): VoiceState {
  if (!session.recordingUri) return { state: 'none' };
  if (session.voice) return { state: 'ready', voice: session.voice };
  if (session.voiceError) return { state: 'missing', reason: session.voiceError };
  return { state: 'pending', recordingUri: session.recordingUri };
}
