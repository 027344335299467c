import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { runScanner, type ScanReport } from '../../shared/domain/monitors/scanner.js';
import { watchRuns, type WatchReport } from '../../shared/domain/runs/watchdog.js';

/**
 * The scanner (EventBridge, every 5 minutes): monitors' idle closing and status rules, then the
 * stall watchdog of runs. Answers the build-info probe.
 */
export const handler = observedHandler(
  async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | (ScanReport & { runs: WatchReport })> => {
    if (isProbe(event)) return buildStamp;
    const report = await runScanner();
    return { ...report, runs: await watchRuns() };
  },
);
