import type { AuthContext } from '../../auth/context.js';
import { getRecord } from '../../db/catalog.js';
import { getGeneratingTest, transitionTest } from '../../db/generation.js';
import { toRecord } from '../../db/records.js';
import { ConflictError } from '../../errors.js';
import type { TestGenerateMore, TestStatus } from '../../schemas/tests.js';
import { testEntity } from '../common/entities.js';
import { ACTIVE_STATUS, CANCELLABLE, finishGeneration, newGenerationState, queueGeneration } from './lifecycle.js';
import type { GenerationAction } from './plan.js';
import type { TestRecord } from '../../schemas/tests.js';

/** Cases an extend or augment writes when `count` is not given. */
export const DEFAULT_MORE_CASES = 10;

/**
 * Starts an extend or augment on a SUCCESS test: the status becomes EXTENDING / AUGMENTING, a new
 * cursor (the next action number) replaces the old one, and the first step goes on the queue.
 * Conditional on the status read, so two concurrent requests start one action (the other is a 409).
 */
async function startMore(
  auth: AuthContext,
  id: string,
  action: Exclude<GenerationAction, 'generate'>,
  count: number,
  allowed: (t: TestRecord) => string | undefined,
): Promise<TestRecord> {
  await getRecord<TestRecord>(testEntity, auth.organizationId, id); // 403 another organization's, 404 none
  const test = (await getGeneratingTest(auth.organizationId, id))!;
  const refusal = allowed(test);
  if (refusal) throw new ConflictError(refusal);
  const gen = newGenerationState(action, (test._gen?.seq ?? 0) + 1, count, test.testCaseCount);
  const after = await transitionTest(
    auth.organizationId,
    id,
    ['SUCCESS'],
    { status: ACTIVE_STATUS[action], error: null },
    { ...(test._gen ? { seq: test._gen.seq } : {}), gen },
  );
  if (!after) throw new ConflictError(`test ${id} changed while this request ran; retry`);
  await queueGeneration(auth.organizationId, id, gen);
  return toRecord<TestRecord>(after as unknown as Record<string, unknown>);
}

/** POST /tests/{id}/extend: a SUCCESS generated test with isExtendable gets up to `count` more cases from its generator. */
export function extendTest(auth: AuthContext, id: string, body: TestGenerateMore): Promise<TestRecord> {
  return startMore(auth, id, 'extend', body.count ?? DEFAULT_MORE_CASES, (t) => {
    if (t.status !== 'SUCCESS') return `test ${id} is ${t.status}; only a SUCCESS test can be extended`;
    if (!t.isExtendable)
      return `test ${id} is not extendable (isExtendable is false: ${t.uri ? 'an uploaded test' : 'a QUALITY test without a groundTruthUri'})`;
    return undefined;
  });
}

/** POST /tests/{id}/augment: a SUCCESS test with cases (uploaded ones too) gets up to `count` cases written from its own. */
export function augmentTest(auth: AuthContext, id: string, body: TestGenerateMore): Promise<TestRecord> {
  return startMore(auth, id, 'augment', body.count ?? DEFAULT_MORE_CASES, (t) => {
    if (t.status !== 'SUCCESS') return `test ${id} is ${t.status}; only a SUCCESS test can be augmented`;
    if (t.testCaseCount === 0) return `test ${id} has no test cases to augment`;
    return undefined;
  });
}

/** POST /tests/{id}/cancel: a PENDING, EXTENDING or AUGMENTING test becomes CANCELLED; its job stops at its next step. */
export async function cancelTest(auth: AuthContext, id: string): Promise<TestRecord> {
  const test = await getRecord<TestRecord>(testEntity, auth.organizationId, id);
  const refuse = (status: TestStatus) =>
    new ConflictError(`test ${id} is ${status}; only a PENDING, EXTENDING or AUGMENTING test can be cancelled`);
  if (!CANCELLABLE.includes(test.status)) throw refuse(test.status);
  const after = await finishGeneration(auth.organizationId, id, CANCELLABLE, { status: 'CANCELLED' });
  if (!after) throw refuse((await getRecord<TestRecord>(testEntity, auth.organizationId, id)).status);
  return after;
}
