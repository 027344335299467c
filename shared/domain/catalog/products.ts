import type { AuthContext } from '../../auth/context.js';
import {
  createRecord,
  getRecord,
  listOrgRecords,
  listProductRecords,
  liveCheck,
  softDeleteWrite,
  transact,
  updateRecord,
  type CatalogRecord,
  type TransactItem,
} from '../../db/catalog.js';
import type { Product, ProductCreate, ProductListQuery, ProductUpdate } from '../../schemas/products.js';
import { newId, nowIso } from '../common/ids.js';
import { patchOf } from '../common/immutable.js';
import { applyList, type Page } from '../common/list.js';
import { productChildren, productEntity } from '../common/entities.js';

export async function createProduct(auth: AuthContext, input: ProductCreate): Promise<Product> {
  const product: Product = {
    id: newId('product'),
    organizationId: auth.organizationId,
    userId: auth.userId,
    name: input.name,
    description: input.description ?? '',
    capabilities: input.capabilities ?? [],
    inabilities: input.inabilities ?? [],
    securityBoundaries: input.securityBoundaries ?? [],
    policies: input.policies ?? [],
    createdAt: nowIso(),
  };
  return createRecord(productEntity, product);
}

export function getProduct(auth: AuthContext, id: string): Promise<Product> {
  return getRecord<Product>(productEntity, auth.organizationId, id, { includeDeleted: true });
}

export async function listProducts(auth: AuthContext, query: ProductListQuery): Promise<Page<Product>> {
  const records = await listOrgRecords<Product>(productEntity, auth.organizationId);
  return applyList(records, query, { sortable: ['createdAt', 'name'] });
}

export function updateProduct(auth: AuthContext, id: string, body: ProductUpdate): Promise<Product> {
  const { set } = patchOf(body, [
    'name',
    'description',
    'capabilities',
    'inabilities',
    'securityBoundaries',
    'policies',
  ]);
  return updateRecord<Product>(productEntity, auth.organizationId, id, set);
}

const MAX_ITEMS = 90;

/**
 * Soft-deletes a product and everything that hangs off it. Children go first, in transactional
 * chunks (a child and its extra items always in the same chunk), and the product last: if a chunk
 * fails, the product is still live, so no live record ever points at a deleted product, and the
 * DELETE can simply be retried.
 */
export async function deleteProduct(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  await getRecord<Product>(productEntity, auth.organizationId, id);
  const deletedAt = nowIso();
  const groups: TransactItem[][] = [];
  for (const child of productChildren) {
    const records = await listProductRecords<CatalogRecord & Record<string, unknown>>(
      child.entity,
      auth.organizationId,
      [id],
    );
    for (const r of records) {
      const update = softDeleteWrite(child.entity, auth.organizationId, r.id, deletedAt, child.removeOnDelete);
      const extras = (await child.onDelete?.(r)) ?? [];
      if (extras.length < MAX_ITEMS) {
        groups.push([update, ...extras]);
        continue;
      }
      // Too many extras for one transaction: they go first (the child stays live until its update).
      for (let i = 0; i < extras.length; i += MAX_ITEMS) await transact(extras.slice(i, i + MAX_ITEMS));
      groups.push([update]);
    }
  }
  let chunk: TransactItem[] = [];
  for (const group of groups) {
    if (chunk.length + group.length > MAX_ITEMS) {
      await transact(chunk);
      chunk = [];
    }
    chunk.push(...group);
  }
  await transact(chunk);
  await transact([softDeleteWrite(productEntity, auth.organizationId, id, deletedAt)]);
  return { id, deletedAt };
}

/** A condition that the product is live, for transactions that create records under it. */
export function productLiveCheck(orgId: string, productId: string): TransactItem {
  return liveCheck(productEntity, orgId, productId);
}
