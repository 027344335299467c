import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseJob } from '../../queue/evaluation-queue.js';
import { log } from '../../http/logger.js';
import { abandonEvaluation, runEvaluation } from './evaluator.js';
import { failedEveryReceive, MAX_RECEIVES } from '../../queue/batch.js';
// Registers the monitor side of the evaluator (caps, score records) for every evaluation this function runs.
import { processMonitorJob } from '../monitors/engine.js';

/**
 * Processes one SQS batch; a failed record is reported so SQS redelivers it. An evaluation job
 * that fails on its last receive ends its evaluation FAILED (credits released) instead of leaving
 * it PENDING for ever; a monitor job goes to the DLQ (the monitor counts failed attempts itself).
 */
export async function processEvaluationBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const job = parseJob(record.body);
    if (!job) {
      log('warn', 'dropping a malformed evaluation job', { messageId: record.messageId });
      continue;
    }
    try {
      if (job.kind === 'evaluation') await runEvaluation(job.sessionId, job.evaluationId);
      else await processMonitorJob(job.monitorId, job.sessionId);
    } catch (error) {
      log('error', 'evaluation job failed', { messageId: record.messageId, error: (error as Error).message });
      if (job.kind === 'evaluation' && Number(record.attributes?.ApproximateReceiveCount ?? 0) >= MAX_RECEIVES) {
        try {
          await abandonEvaluation(job.sessionId, job.evaluationId, failedEveryReceive('the evaluation', error as Error));
          continue;
        } catch (giveUpError) {
          log('error', 'evaluation job could not be settled', { messageId: record.messageId, error: (giveUpError as Error).message });
        }
      }
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
