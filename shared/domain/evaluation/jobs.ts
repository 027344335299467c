import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseJob } from '../../queue/evaluation-queue.js';
import { log } from '../../http/logger.js';
import { runEvaluation } from './evaluator.js';
// Registers the monitor side of the evaluator (caps, score records) for every evaluation this function runs.
import { processMonitorJob } from '../monitors/engine.js';

/** Processes one SQS batch; a failed record is reported so SQS redelivers it (DLQ after 3 receives). */
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
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
