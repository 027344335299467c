import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { runScanner, type ScanReport } from '../../shared/domain/monitors/scanner.js';

/** Monitor scanner (EventBridge, every 5 minutes): idle closing and status rules. Answers the build-info probe. */
export const handler = observedHandler(async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | ScanReport> => {
  if (isProbe(event)) return buildStamp;
  return runScanner();
});
