import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { processRunBatch } from '../../shared/domain/runs/jobs.js';

/** Run-queue consumer (SQS, partial batch failures): fan-out pages and session steps. Answers the build-info probe. */
export const handler = observedHandler(
  async (event: SQSEvent | ProbeEvent, context?: Context): Promise<BuildStamp | SQSBatchResponse> => {
    if (isProbe(event)) return buildStamp;
    return processRunBatch(event, context);
  },
);
