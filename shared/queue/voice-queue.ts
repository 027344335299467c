import { ENV, optionalEnv } from '../config/env.js';
import { sendJobs } from './sqs.js';

/**
 * A job on the voice queue: analyse the recording `recordingUri` of a session for its voice
 * figures. Delivery is at least once: the job stores the same figures however often it runs, and
 * only while the session still names that recording. `waits` counts the times it went back on the
 * queue to wait for a test call's last turn.
 */
export interface VoiceJob {
  sessionId: string;
  recordingUri: string;
  waits?: number;
}

const queueUrl = optionalEnv(ENV.voiceQueueUrl);

export async function enqueueVoiceJobs(jobs: VoiceJob[], delayMs = 0): Promise<void> {
  await sendJobs(
    { queueUrl, label: 'voice queue', name: 'voice' },
    jobs.map((job) => JSON.stringify(job)),
    delayMs,
  );
}

export function parseVoiceJob(body: string): VoiceJob | undefined {
  try {
    const job = JSON.parse(body) as VoiceJob;
    if (typeof job.sessionId !== 'string' || typeof job.recordingUri !== 'string') return undefined;
    if (job.waits !== undefined && !Number.isInteger(job.waits)) return undefined;
    return job;
  } catch {
    return undefined;
  }
}
