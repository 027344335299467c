import { enqueueVoiceJobs } from '../../queue/voice-queue.js';

/**
 * Asks for a session's voice figures: its recording goes on the voice queue (shared/domain/voice/
 * session-voice.ts analyses it). Asked when a recording is set, and by an evaluation that needs
 * figures a session does not have yet (a job lost, or a session recorded before figures existed);
 * asking twice analyses once.
 */
export async function requestVoiceFigures(session: { id: string; recordingUri: string }): Promise<void> {
  await enqueueVoiceJobs([{ sessionId: session.id, recordingUri: session.recordingUri }]);
}
