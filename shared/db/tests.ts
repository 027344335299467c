import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { NotFoundError } from '../http/errors.js';

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
