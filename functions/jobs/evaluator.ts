import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { log } from '../../shared/http/logger.js';

/** Evaluation-queue consumer (SQS, batch 10, partial batch failures). Answers the build-info probe. */
export const handler = async (event: SQSEvent | ProbeEvent): Promise<BuildStamp | SQSBatchResponse> => {
  if (isProbe(event)) return buildStamp;
  log('info', 'evaluator batch', { records: event.Records.length });
  return { batchItemFailures: [] };
};
