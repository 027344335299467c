import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../../http/logger.js';
import { parseRunJob } from '../../queue/run-queue.js';
import { processFanout, processStep } from './execution.js';

/**
 * Processes one SQS batch of run jobs, the records in parallel (each is one agent call at most).
 * A failed record is reported so SQS redelivers it (DLQ after 3 receives); every job is idempotent.
 */
export async function processRunBatch(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  const remainingMs = context?.getRemainingTimeInMillis ? () => context.getRemainingTimeInMillis() : undefined;
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const job = parseRunJob(record.body);
      if (!job) {
        log('warn', 'dropping a malformed run job', { messageId: record.messageId });
        return;
      }
      try {
        if (job.kind === 'fanout') await processFanout(job);
        else await processStep(job, { ...(remainingMs ? { remainingMs } : {}) });
      } catch (error) {
        log('error', 'run job failed', { messageId: record.messageId, kind: job.kind, runId: job.runId, error: (error as Error).message });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
