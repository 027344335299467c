import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { processEvaluationBatch } from '../../shared/domain/evaluation/jobs.js';

/** Evaluation-queue consumer (SQS, batch 10, partial batch failures). Answers the build-info probe. */
export const handler = observedHandler(async (event: SQSEvent | ProbeEvent): Promise<BuildStamp | SQSBatchResponse> => {
  if (isProbe(event)) return buildStamp;
  return processEvaluationBatch(event);
});
