import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { runAggregator } from '../../shared/domain/monitors/aggregator.js';

/** Daily-bucket aggregator (EventBridge, every 5 minutes). Answers the build-info probe. */
export const handler = observedHandler(
  async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | { buckets: number }> => {
    if (isProbe(event)) return buildStamp;
    return runAggregator();
  },
);
