import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { sweepDueDeliveries } from '../../shared/domain/webhooks/delivery.js';

/** Webhook retry sweep (EventBridge, every minute): due attempts whose wait exceeded the queue's delay. Answers the build-info probe. */
export const handler = observedHandler(
  async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | { enqueued: number }> => {
    if (isProbe(event)) return buildStamp;
    return sweepDueDeliveries();
  },
);
