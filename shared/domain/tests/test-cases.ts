import type { AuthContext } from '../../auth/context.js';
import { getRecord, liveCheck, newItemWrite, transact, updateRecord } from '../../db/catalog.js';
import { keys } from '../../db/keys.js';
import { queryIndex } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import { ConflictError, ValidationError } from '../../errors.js';
import type { TestCaseCreate, TestCaseListQuery } from '../../schemas/tests.js';
import { clock } from '../common/clock.js';
import { testCaseEntity, testEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { applyList, type Page } from '../common/list.js';
import { canonicalLanguageTag } from './test-rules.js';
import { nextCaseIndex, offloadCases } from './tests.js';
import { discardObjects, restoreItem, restoreItems, type OffloadResult } from '../../db/offload.js';
import { transactionCancellationCodes } from '../../db/errors.js';
import { bodyReference } from '../common/references.js';
import type { TestCase, TestRecord } from '../../schemas/tests.js';

/** Fields a case must carry for its test's type. */
function checkCase(test: TestRecord, input: TestCaseCreate): void {
  if (test.type === 'SCENARIOS') {
    if (!input.goal) throw new ValidationError('goal is required for a case of a SCENARIOS test');
    if (!input.userPersona) throw new ValidationError('userPersona is required for a case of a SCENARIOS test');
  } else if (input.input === undefined || input.input === '') {
    throw new ValidationError(`input is required for a case of a ${test.type} test`);
  }
  if (
    input.variant &&
    test.type !== 'SCENARIOS' &&
    test.variants.length > 0 &&
    !test.variants.includes(input.variant)
  ) {
    throw new ValidationError(`variant must be one of the test's variants: ${test.variants.join(', ')}`);
  }
}

export async function createTestCase(auth: AuthContext, input: TestCaseCreate): Promise<TestCase> {
  const test = await bodyReference(
    () => getRecord<TestRecord>(testEntity, auth.organizationId, input.testId),
    'testId',
    input.testId,
    'test',
  );
  checkCase(test, input);
  const index = await nextCaseIndex(auth.organizationId, test.id);
  const testCase: TestCase = {
    id: newId('testCase'),
    organizationId: auth.organizationId,
    productId: test.productId,
    testId: test.id,
    index,
    input: input.input ?? null,
    expectedOutput: input.expectedOutput ?? null,
    expectedTools: input.expectedTools ?? [],
    context: input.context ?? null,
    variant: input.variant ?? null,
    strategy: input.strategy ?? null,
    languageCode: canonicalLanguageTag(input.languageCode ?? test.languageCode),
    goal: input.goal ?? null,
    userPersona: input.userPersona ?? null,
    scenario: input.scenario ?? null,
    stoppingCriterias: input.stoppingCriterias ?? [],
    maxIterations: input.maxIterations ?? null,
    isAugmented: false,
    createdAt: clock.now().toISOString(),
  };
  const [[record, pointer]] = (await offloadCases([testCase])) as [[OffloadResult, Record<string, unknown>]];
  try {
    await transact([
      newItemWrite(record.item),
      newItemWrite(pointer),
      liveCheck(testEntity, auth.organizationId, test.id),
    ]);
  } catch (error) {
    // A cancelled transaction wrote nothing: no item points at these objects.
    if (error instanceof ConflictError || transactionCancellationCodes(error)) await discardObjects(record.written);
    throw error;
  }
  return testCase;
}

export function getTestCase(auth: AuthContext, id: string): Promise<TestCase> {
  return getRecord<TestCase>(testCaseEntity, auth.organizationId, id, { includeDeleted: true, restore: restoreItem });
}

/** Cases of the caller's tests (each test must be the caller's: 403 another's, 404 unknown or deleted). */
export async function listTestCases(auth: AuthContext, query: TestCaseListQuery): Promise<Page<TestCase>> {
  for (const testId of query.testIds) await getRecord<TestRecord>(testEntity, auth.organizationId, testId);
  const lists = await Promise.all(query.testIds.map((id) => queryIndex('gsi1', keys.byTestPartition(id))));
  const cases = lists
    .flat()
    .map((i) => toRecord<TestCase>(i, { keepInternal: true }))
    .filter((c) => c.organizationId === auth.organizationId && !c.deletedAt);
  const page = applyList(cases as (TestCase & { name?: string })[], query, {
    sortable: ['index', 'createdAt', 'testId'],
    defaultSort: ['testId:asc', 'index:asc'],
  });
  // Only the page returned reads its large fields back from S3.
  const items = await restoreItems(page.items as unknown as Record<string, unknown>[]);
  return { items: items.map((i) => toRecord<TestCase>(i)), total: page.total };
}

export async function deleteTestCase(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  const deletedAt = clock.now().toISOString();
  await updateRecord(testCaseEntity, auth.organizationId, id, { deletedAt });
  return { id, deletedAt };
}
