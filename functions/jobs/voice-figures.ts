import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { processVoiceBatch } from '../../shared/domain/voice/jobs.js';

/** Voice-queue consumer (SQS, partial batch failures): one call recording analysed per record. Answers the build-info probe. */
export const handler = observedHandler(async (event: SQSEvent | ProbeEvent): Promise<BuildStamp | SQSBatchResponse> => {
  if (isProbe(event)) return buildStamp;
  return processVoiceBatch(event);
});
