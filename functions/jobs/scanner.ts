import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { log } from '../../shared/http/logger.js';

/** Monitor scanner (EventBridge, every 5 minutes). Answers the build-info probe. */
export const handler = async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | { scanned: number }> => {
  if (isProbe(event)) return buildStamp;
  log('info', 'scanner run', { time: event.time });
  return { scanned: 0 };
};
