import type { ScheduledEvent } from 'aws-lambda';
import { buildStamp, isProbe, type BuildStamp, type ProbeEvent } from '../../shared/build/stamp.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { runScanner, type ScanReport } from '../../shared/domain/monitors/scanner.js';
import { watchRuns, type WatchReport } from '../../shared/domain/runs/watchdog.js';
import { watchGenerations, type GenerationWatchReport } from '../../shared/domain/generation/watchdog.js';

export type ScannerReport = ScanReport & { runs: WatchReport; generations: GenerationWatchReport };

/**
 * The scanner (EventBridge, every 5 minutes): monitors' idle closing and status rules, then the
 * stall watchdog of runs and of generating tests. A failing part does not keep the others from
 * running; the invocation fails after them (its Errors alarm). Answers the build-info probe.
 */
export const handler = observedHandler(
  async (event: ScheduledEvent | ProbeEvent): Promise<BuildStamp | ScannerReport> => {
    if (isProbe(event)) return buildStamp;
    // One after the other (each reads the table at its own pace), each whatever the others did.
    const monitors = await settled(runScanner);
    const runs = await settled(() => watchRuns());
    const generations = await settled(() => watchGenerations());
    for (const part of [monitors, runs, generations]) if ('error' in part) throw part.error;
    return { ...monitors.value!, runs: runs.value!, generations: generations.value! };
  },
);

async function settled<T>(part: () => Promise<T>): Promise<{ value: T } | { error: unknown; value?: undefined }> {
  try {
    return { value: await part() };
  } catch (error) {
    return { error };
  }
}
