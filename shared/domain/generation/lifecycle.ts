import { getGeneratingTest, transitionTest, type GeneratingTest, type GenerationState } from '../../db/generation.js';
import { toRecord } from '../../db/records.js';
import { logger } from '../../observability/logger.js';
import { enqueueGenerationJobs } from '../../queue/generation-queue.js';
import type { TestStatus } from '../../schemas/tests.js';
import type { GenerationAction } from './plan.js';
import { emitEvent } from '../webhooks/events.js';
import type { TestRecord } from '../../schemas/tests.js';

/**
 * The states of a generated test in one place: the status an action works in,
 * its start, and every terminal transition (SUCCESS, FAILED, CANCELLED) of a generation.
 */

/** The status a test has while an action runs. */
export const ACTIVE_STATUS: Readonly<Record<GenerationAction, TestStatus>> = {
  generate: 'PENDING',
  extend: 'EXTENDING',
  augment: 'AUGMENTING',
};
/** Statuses a cancel applies to. */
export const CANCELLABLE: readonly TestStatus[] = ['PENDING', 'EXTENDING', 'AUGMENTING'];

export function newGenerationState(action: GenerationAction, seq: number, target: number, offset = 0): GenerationState {
  return { seq, action, target, step: 0, written: 0, offset };
}

export type GenerationOutcome = { status: 'SUCCESS' } | { status: 'FAILED'; error: string } | { status: 'CANCELLED' };

/**
 * Ends a generation: the test moves from `from` to the outcome's status (FAILED with its error;
 * the cases written so far stay), only for action `seq` when given. Undefined when the test was no
 * longer in `from` (another worker or a cancel got there first), so each end happens once.
 *
 * SUCCESS and FAILED are sent as `test.generated` / `test.failed`, once per
 * action: the event's key is the test and its action, and a redelivered job that finds the test
 * already ended by this action sends it again under the same key (a no-op when it was sent), so
 * a worker stopped between the two writes loses no event.
 */
export async function finishGeneration(
  orgId: string,
  testId: string,
  from: readonly TestStatus[],
  outcome: GenerationOutcome,
  seq?: number,
): Promise<TestRecord | undefined> {
  const set =
    outcome.status === 'FAILED' ? { status: outcome.status, error: outcome.error } : { status: outcome.status };
  const after = await transitionTest(orgId, testId, from, set, seq === undefined ? {} : { seq });
  if (!after) {
    if (seq !== undefined && outcome.status !== 'CANCELLED') {
      const current = await getGeneratingTest(orgId, testId);
      if (current && current.status === outcome.status && current._gen?.seq === seq) await announce(orgId, current);
    }
    return undefined;
  }
  logger.info('test generation ended', {
    organizationId: orgId,
    testId,
    status: outcome.status,
    testCaseCount: after.testCaseCount,
    ...(outcome.status === 'FAILED' ? { error: outcome.error } : {}),
  });
  await announce(orgId, after);
  return toRecord<TestRecord>(after as unknown as Record<string, unknown>);
}

/** `test.generated` / `test.failed` for a generation that ended SUCCESS / FAILED (nothing for CANCELLED). */
async function announce(orgId: string, test: GeneratingTest): Promise<void> {
  if (test.status !== 'SUCCESS' && test.status !== 'FAILED') return;
  const type = test.status === 'SUCCESS' ? 'test.generated' : 'test.failed';
  const record = toRecord<TestRecord>(test as unknown as Record<string, unknown>);
  await emitEvent(orgId, type, record, `${type}#${testId(test)}#${test._gen?.seq ?? 0}`);
}

const testId = (test: GeneratingTest): string => test.id;

/**
 * Puts the first step of an action on the generation queue. When the queue refuses it, the test
 * fails at once (it would otherwise wait forever) and the error goes to the caller.
 */
export async function queueGeneration(orgId: string, testId: string, gen: GenerationState): Promise<void> {
  try {
    await enqueueGenerationJobs([{ organizationId: orgId, testId, seq: gen.seq, step: 0 }]);
  } catch (error) {
    await finishGeneration(
      orgId,
      testId,
      [ACTIVE_STATUS[gen.action]],
      { status: 'FAILED', error: 'the generation could not be queued; try again' },
      gen.seq,
    );
    throw error;
  }
}
