import { leaseFreeBelow } from '../../db/leases.js';
import { getSessionWithInternals, listEvaluations, listTurnItems } from '../../db/sessions.js';
import {
  claimVoiceAnalysis,
  releaseVoiceAnalysis,
  type SessionVoiceResult,
  storeSessionVoice,
} from '../../db/voice.js';
import { logger } from '../../observability/logger.js';
import { enqueue } from '../../queue/evaluation-queue.js';
import { enqueueVoiceJobs, type VoiceJob } from '../../queue/voice-queue.js';
import type { Session } from '../../schemas/sessions.js';
import { bucketName, readObjectBytes } from '../../storage/s3.js';
import { parseS3Uri } from '../../storage/uri.js';
import { RecordingError, readStereoRecording } from '../../voice/recording.js';
import { clock } from '../common/clock.js';
import { refreshRunVoice } from '../runs/run-voice.js';
import { NO_SPEECH, NOT_IN_STORAGE, voiceOfRecording, voiceStateOf } from './figures.js';

/**
 * The voice figures job: a session's recording read from storage, decoded (shared/voice/recording.ts)
 * and turned into its figures (./figures.ts), stored on the session while it still names that
 * recording. A recording that cannot be read, or holds no speech, stores no figures and the reason
 * instead: the job never fails on the bytes it reads, so it is never stuck on them. Then what waits
 * on the figures goes on: the session's pending evaluations are queued again, and a run's figures
 * brought up to date. Delivered twice, it stores the same figures and queues the same evaluations,
 * which score once.
 */

/** How long a test call's job waits for its session to end (its last turn may still be recorded), and how often. */
export const TURN_WAIT_MS = 5_000;
export const MAX_TURN_WAITS = 36;
/** How long a job holds a recording: longer than the voice function's timeout, shorter than the queue's visibility. */
export const VOICE_LEASE_MS = 6 * 60_000;

type Outcome = 'stored' | 'unchanged' | 'waiting' | 'busy' | 'stale';

/** Runs one voice job: see the module's comment. */
export async function processVoiceJob(job: VoiceJob): Promise<Outcome> {
  const session = await getSessionWithInternals(job.sessionId);
  if (!session || session.recordingUri !== job.recordingUri) return 'stale'; // another recording's job stores its own
  if (voiceStateOf(session).state !== 'pending') {
    // Stored by an earlier delivery, which may have stopped before what follows.
    await afterFigures(session);
    return 'unchanged';
  }
  // A test call's figures take its turns' latencies: its last turn may be recorded just after the hang-up.
  if (session.runId && session.status === 'PENDING' && (job.waits ?? 0) < MAX_TURN_WAITS) {
    await enqueueVoiceJobs([{ ...job, waits: (job.waits ?? 0) + 1 }], TURN_WAIT_MS);
    return 'waiting';
  }
  // Another job analyses it: that one queues what waits on the figures once they are stored.
  const now = clock.now().getTime();
  const until = now + VOICE_LEASE_MS;
  if (!(await claimVoiceAnalysis(session.id, job.recordingUri, until, leaseFreeBelow(now, VOICE_LEASE_MS))))
    return 'busy';
  try {
    const result = await analyse(session, job.recordingUri);
    if (!(await storeSessionVoice(session, job.recordingUri, result))) return 'stale';
  } catch (error) {
    // Its next delivery may take the recording again at once.
    await releaseVoiceAnalysis(session.id, until);
    throw error;
  }
  await afterFigures(session);
  return 'stored';
}

/**
 * A job that failed on every receive (storage trouble): the session takes no figures and says so,
 * and what waited on them goes on (evaluations are skipped with the reason), rather than waiting
 * for ever. The cause is logged, not shown.
 */
export async function abandonVoiceJob(job: VoiceJob, error: Error): Promise<void> {
  const session = await getSessionWithInternals(job.sessionId);
  if (!session || session.recordingUri !== job.recordingUri || voiceStateOf(session).state !== 'pending') return;
  logger.error('voice figures given up', { sessionId: job.sessionId, error: error.message });
  const result = { voice: null, voiceError: 'the recording could not be analysed: reading it failed 3 times' };
  if (await storeSessionVoice(session, job.recordingUri, result)) await afterFigures(session);
}

/** The figures of the session's recording, or why it has none. */
async function analyse(session: Session, recordingUri: string): Promise<SessionVoiceResult> {
  const location = parseS3Uri(recordingUri);
  if (!location || location.bucket !== bucketName) return { voice: null, voiceError: NOT_IN_STORAGE };
  const bytes = await readObjectBytes(location.key);
  if (!bytes) return { voice: null, voiceError: `the recording was not found at ${recordingUri}` };
  let recording: ReturnType<typeof readStereoRecording>;
  try {
    recording = readStereoRecording(bytes);
  } catch (error) {
    if (error instanceof RecordingError) return { voice: null, voiceError: error.message };
    throw error;
  }
  const voice = voiceOfRecording(recording, await turnLatencies(session));
  return voice ? { voice, voiceError: null } : { voice: null, voiceError: NO_SPEECH };
}

/**
 * A test call's response latencies are its turns' (the service measured each answer's leading
 * silence: docs/voice.md); a production call's come from its recording, whatever its turns say.
 */
async function turnLatencies(session: Session): Promise<number[] | undefined> {
  if (!session.runId || session.channel !== 'PHONE') return undefined;
  return (await listTurnItems(session.id))
    .sort((a, b) => Number(a.index) - Number(b.index))
    .map((t) => t.latencyMs)
    .filter((ms): ms is number => typeof ms === 'number');
}

/** The session's evaluations that waited on its figures are queued again; a run's figures are brought up to date. */
async function afterFigures(session: Session): Promise<void> {
  const waiting = (await listEvaluations(session.id)).filter((e) => e.status === 'PENDING');
  await enqueue(waiting.map((e) => ({ kind: 'evaluation' as const, sessionId: session.id, evaluationId: e.id })));
  if (session.runId) await refreshRunVoice(session.organizationId, session.runId);
}

/** Asks for a session's figures (after its recording was set, or by an evaluation that needs them). */
export async function requestVoiceFigures(session: { id: string; recordingUri: string }): Promise<void> {
  await enqueueVoiceJobs([{ sessionId: session.id, recordingUri: session.recordingUri }]);
}
