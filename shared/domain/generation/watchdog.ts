import { closeCharge, getGeneratingTest } from '../../db/generation.js';
import {
  generatingTests,
  getGenerationWatch,
  putGenerationWatch,
  retireGeneratingTest,
  type GeneratingEntry,
} from '../../db/stall-watch.js';
import { logger } from '../../observability/logger.js';
import { countStalled } from '../../observability/metrics.js';
import { enqueueGenerationJobs } from '../../queue/generation-queue.js';
import { clock } from '../common/clock.js';
import { STALLED_ERROR, stallMinutes, watchDecision } from '../common/stall.js';
import { ACTIVE_STATUS, finishGeneration } from './lifecycle.js';

/**
 * The stall watchdog of generating tests (PENDING, EXTENDING, AUGMENTING), run by the scanner
 * after the runs'. A generation's progress is its cursor (the action and its next step, on the
 * test item, moved by each step's commit). When it has not moved for STALL_MINUTES the job of its
 * current step is sent again (idempotent: a step is taken with a lease and committed once), up to
 * 3 times; after that the test ends FAILED naming the stall (its `test.failed` event follows, the
 * cases written so far stay, a credit reservation its step held is released).
 */

export interface GenerationWatchReport {
  /** Tests on the index looked at. */
  tests: number;
  redelivered: number;
  failed: number;
  /** Tests no longer generating taken off the index. */
  retired: number;
  /** Tests that could not be looked at (logged; the next pass tries again). */
  errors: number;
}

/**
 * One pass over the generating tests; a second pass at once changes nothing more. `only` narrows
 * it to some tests (tests that share a table with others).
 */
export async function watchGenerations(
  now: Date = clock.now(),
  only: (test: GeneratingEntry) => boolean = () => true,
): Promise<GenerationWatchReport> {
  const report: GenerationWatchReport = { tests: 0, redelivered: 0, failed: 0, retired: 0, errors: 0 };
  const stallMs = stallMinutes() * 60_000;
  for (const entry of (await generatingTests()).filter(only)) {
    report.tests++;
    try {
      const done = await watchGeneration(entry, now, stallMs);
      if (done) report[done]++;
    } catch (error) {
      report.errors++;
      logger.error('stall watchdog: test not looked at', {
        testId: entry.testId,
        organizationId: entry.organizationId,
        error: (error as Error).message,
      });
    }
  }
  return report;
}

async function watchGeneration(
  entry: GeneratingEntry,
  now: Date,
  stallMs: number,
): Promise<'redelivered' | 'failed' | 'retired' | undefined> {
  const test = await getGeneratingTest(entry.organizationId, entry.testId);
  const gen = test?._gen;
  if (!test || !gen || test.deletedAt || test.status !== ACTIVE_STATUS[gen.action]) {
    await retireGeneratingTest(entry.organizationId, entry.testId, Object.values(ACTIVE_STATUS));
    return 'retired';
  }
  const stored = await getGenerationWatch(test.id);
  // A record of an earlier action (one that ended and another began between two passes) starts over.
  const seen = stored?.seq === gen.seq ? stored : undefined;
  const decision = watchDecision(seen, String(gen.step), now, stallMs);
  if (!decision.next || !(await putGenerationWatch(test.id, stored, { ...decision.next, seq: gen.seq }, now)))
    return undefined;
  const status = ACTIVE_STATUS[gen.action];
  const about = {
    testId: test.id,
    organizationId: test.organizationId,
    status,
    action: gen.seq,
    step: gen.step,
    stalledSince: seen?.movedAt,
  };
  if (decision.action === 'redeliver') {
    await enqueueGenerationJobs([
      { organizationId: test.organizationId, testId: test.id, seq: gen.seq, step: gen.step },
    ]);
    countStalled('test');
    logger.warn('stalled generation: step sent again', { ...about, redelivery: decision.next.redeliveries });
    return 'redelivered';
  }
  if (decision.action === 'fail') {
    const failed = await finishGeneration(
      test.organizationId,
      test.id,
      [status],
      { status: 'FAILED', error: STALLED_ERROR },
      gen.seq,
    );
    // A reservation of a step that will not be committed goes back to the organization (once).
    if (failed && gen.charge) await closeCharge(test.organizationId, test.id, gen.seq, gen.charge, 'release');
    countStalled('test');
    logger.error('stalled generation: test failed', { ...about, failed: Boolean(failed) });
    return 'failed';
  }
  return undefined;
}
