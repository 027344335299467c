import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processBatch } from '../../queue/batch.js';
import { parseVoiceJob } from '../../queue/voice-queue.js';
import { abandonVoiceJob, processVoiceJob } from './session-voice.js';

/**
 * Processes one SQS batch of voice jobs, one recording after the other (each is decoded whole, so
 * two at once would hold twice the memory). A failed record is reported so SQS redelivers it; on
 * its last receive the session takes the reason instead of figures (`abandonVoiceJob`).
 */
export function processVoiceBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  return processBatch(event, undefined, {
    label: 'voice',
    parse: parseVoiceJob,
    describe: (job) => ({ sessionId: job.sessionId }),
    run: (job) => processVoiceJob(job).then(() => undefined),
    giveUp: abandonVoiceJob,
    sequential: true,
  });
}
