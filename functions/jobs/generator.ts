import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { processGenerationBatch } from '../../shared/domain/generation/job.js';

/** Generation-queue consumer (SQS, partial batch failures): one generator step per record. Answers the build-info probe. */
export const handler = observedHandler(
  async (event: SQSEvent | ProbeEvent, context?: Context): Promise<BuildStamp | SQSBatchResponse> => {
    if (isProbe(event)) return buildStamp;
    return processGenerationBatch(event, context);
  },
);
