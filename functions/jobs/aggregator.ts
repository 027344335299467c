import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { log } from '../../shared/http/logger.js';

/** Daily-bucket aggregator (EventBridge, every 5 minutes). Answers the build-info probe. */
export const handler = async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | { buckets: number }> => {
  if (isProbe(event)) return buildStamp;
  log('info', 'aggregator run', { time: event.time });
  return { buckets: 0 };
};
