import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import type { TransactItem } from './catalog.js';
import { NotFoundError } from '../errors.js';
import type { TestCase } from '../schemas/tests.js';

/** Reserves the next case index of a live test (a counter on the test); 404 when the test is gone. */
export async function reserveCaseIndex(orgId: string, testId: string): Promise<number> {
  try {
    const out = await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.catalog(orgId, 'TEST', testId),
        UpdateExpression: 'ADD testCaseCount :one',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.testCaseCount);
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new NotFoundError(`test ${testId} not found`);
    throw error;
  }
}

/**
 * The update that records a version a live test has sessions on, so GET /tests?versionIds= is
 * answered from the test record itself. Used in a transaction (POST /sessions) and alone (runs).
 */
/** Marks a test as having sessions of a version (GET /tests?versionIds=), for a transaction. */
export function testVersionMarkWrite(orgId: string, testId: string, versionId: string): TransactItem {
  return { Update: testVersionMark(orgId, testId, versionId) };
}

export function testVersionMark(orgId: string, testId: string, versionId: string) {
  return {
    TableName: tableName,
    Key: keys.catalog(orgId, 'TEST', testId),
    UpdateExpression: 'ADD #v :v',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
    ExpressionAttributeNames: { '#v': '_versionIds' },
    ExpressionAttributeValues: { ':v': new Set([versionId]) },
  };
}

/** Moves the item of a case not yet written to index `index` of its test (its index key follows). */
export function renumberCaseItem(item: Record<string, unknown>, testId: string, index: number): void {
  Object.assign(item, { index, ...keys.byTest(testId, index, String(item.id)) });
}

/** The items of one test case: the record (indexed by test on gsi1) and its owner pointer. */
export function caseItems(c: TestCase): Record<string, unknown>[] {
  return [
    {
      ...keys.catalog(c.organizationId, 'TCASE', c.id),
      ...keys.byTest(c.testId, c.index, c.id),
      entity: 'TCASE',
      ...c,
    },
    { ...keys.idOwner(c.id), entity: 'ID', organizationId: c.organizationId, type: 'TCASE' },
  ];
}
