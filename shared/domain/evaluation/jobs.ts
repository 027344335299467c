import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseJob } from '../../queue/evaluation-queue.js';
import { failedEveryReceive, processBatch } from '../../queue/batch.js';
import { abandonEvaluation, runEvaluation } from './evaluator.js';
// Registers the monitor side of the evaluator (caps, score records) for every evaluation this function runs.
import { processMonitorJob } from '../monitors/engine.js';

/**
 * Processes one SQS batch, one job after the other; a failed record is reported so SQS redelivers
 * it. An evaluation job that fails on its last receive ends its evaluation FAILED (credits
 * released) instead of leaving it PENDING for ever; a monitor job goes to the DLQ (the monitor
 * counts failed attempts itself).
 */
export function processEvaluationBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  return processBatch(event, undefined, {
    label: 'evaluation',
    parse: parseJob,
    describe: (job) =>
      job.kind === 'evaluation'
        ? { sessionId: job.sessionId, evaluationId: job.evaluationId }
        : { monitorId: job.monitorId, sessionId: job.sessionId },
    run: (job) =>
      job.kind === 'evaluation'
        ? runEvaluation(job.sessionId, job.evaluationId).then(() => undefined)
        : processMonitorJob(job.monitorId, job.sessionId),
    giveUp: (job, error) =>
      job.kind === 'evaluation'
        ? abandonEvaluation(job.sessionId, job.evaluationId, failedEveryReceive('the evaluation', error)).then(
            () => undefined,
          )
        : Promise.reject(error),
    sequential: true,
  });
}
