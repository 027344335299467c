import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { updateItem, type CatalogEntity, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';

/** The id of the version that holds a name within a product (its name guard item), if any. */
export async function versionIdHoldingName(productId: string, name: string): Promise<string | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.versionName(productId, name), ConsistentRead: true }),
  );
  return out.Item ? String(out.Item.versionId) : undefined;
}

/** The name guard of a version: a put that fails when the product already has a version of that name. */
export function claimVersionName(productId: string, name: string, versionId: string): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.versionName(productId, name), entity: 'VERSIONNAME', versionId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The release of a version's name within its product (renamed or deleted). */
export function releaseVersionName(productId: string, name: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keys.versionName(productId, name) } };
}

/**
 * The change of a live version's fields, conditional on the name it had when read: the name guard
 * must move with the name.
 */
export function updateVersionNamed(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  set: Record<string, unknown>,
  currentName: string,
): TransactItem {
  return {
    Update: updateItem(entity, orgId, id, set, [], {
      expression: '#curName = :curName',
      names: { '#curName': 'name' },
      values: { ':curName': currentName },
    }),
  };
}
