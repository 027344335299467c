import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processBatch } from '../../queue/batch.js';
import { parseRunJob } from '../../queue/run-queue.js';
import { abandonStep } from './abandon.js';
import { processFanout } from './fanout.js';
import { processStep } from './session/runner.js';
import { processCancel } from './cancellation.js';

/**
 * Processes one SQS batch of run jobs, the records in parallel (each is one agent call at most).
 * A failed record is reported so SQS redelivers it (DLQ after 3 receives); every job is idempotent.
 */
export function processRunBatch(
  event: SQSEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SQSBatchResponse> {
  return processBatch(event, context, {
    label: 'run',
    parse: parseRunJob,
    describe: (job) => ({
      organizationId: job.organizationId,
      runId: job.runId,
      ...(job.kind === 'step'
        ? { sessionId: job.sessionId, step: job.seq }
        : job.kind === 'fanout'
          ? { fanoutPage: job.planIndex }
          : { cancelPage: job.startKey ? 'next' : 'first' }),
    }),
    run: (job, remainingMs, receives) =>
      job.kind === 'fanout'
        ? processFanout(job, { receives })
        : job.kind === 'cancel'
          ? processCancel(job)
          : processStep(job, { ...(remainingMs ? { remainingMs } : {}) }),
    giveUp: (job, error) => (job.kind === 'step' ? abandonStep(job, error) : Promise.reject(error)),
  });
}
