import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';

/** The id of the version that holds a name within a product (its name guard item), if any. */
export async function versionIdHoldingName(productId: string, name: string): Promise<string | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.versionName(productId, name), ConsistentRead: true }),
  );
  return out.Item ? String(out.Item.versionId) : undefined;
}
