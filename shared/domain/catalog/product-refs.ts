import type { AuthContext } from '../../auth/context.js';
import { getRecord, type CatalogRecord } from '../../db/catalog.js';
import { productEntity } from '../common/entities.js';
import { bodyReference } from '../common/references.js';

/**
 * A reference from a body to a product: it must be a live product of the caller's organization.
 * Another organization's product is a 403; an unknown or deleted one is a 400 naming the field.
 */
export async function requireLiveProduct(
  auth: AuthContext,
  productId: string,
  field = 'productId',
): Promise<CatalogRecord> {
  return bodyReference(
    () => getRecord<CatalogRecord>(productEntity, auth.organizationId, productId),
    field,
    productId,
    'product',
  );
}
