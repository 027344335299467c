import type { AuthContext } from '../../auth/context.js';
import {
  createRecord,
  getRecord,
  listOrgRecords,
  listProductRecords,
  transact,
  updateRecord,
} from '../../db/catalog.js';
import {
  getVisibleMetric,
  linkDelete,
  linkPut,
  listOrgLinks,
  listSpecLinks,
  type MetricLink,
} from '../../db/metrics.js';
import { NotFoundError } from '../../errors.js';
import type {
  MetricLinkBody,
  SpecificationCreate,
  SpecificationListQuery,
  SpecificationUpdate,
  StoredSpecification,
} from '../../schemas/specifications.js';
import { clock } from '../common/clock.js';
import { specificationEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { patchOf, rejectImmutable } from '../common/immutable.js';
import { anyOf, applyList, containsIgnoreCase, intersects, type Page } from '../common/list.js';
import { visibleMetrics } from './metrics.js';
import { requireLiveProduct } from '../catalog/product-refs.js';
import { productLiveCheck } from '../catalog/products.js';
import { checkSpecification } from './specification-rules.js';
import type { Metric } from '../../schemas/metrics.js';
import type { Specification } from '../../schemas/specifications.js';

function withLinks(spec: StoredSpecification, links: MetricLink[]): Specification {
  return {
    ...spec,
    metricIds: links
      .filter((l) => l.specificationId === spec.id)
      .map((l) => l.metricId)
      .sort(),
  };
}

export async function createSpecification(auth: AuthContext, input: SpecificationCreate): Promise<Specification> {
  await requireLiveProduct(auth, input.productId);
  const spec: StoredSpecification = {
    id: newId('specification'),
    organizationId: auth.organizationId,
    productId: input.productId,
    userId: auth.userId,
    description: input.description,
    type: input.type,
    testType: input.testType ?? null,
    testVariant: input.testVariant ?? null,
    createdAt: clock.now().toISOString(),
  };
  checkSpecification(spec);
  await createRecord(specificationEntity, spec, [productLiveCheck(auth.organizationId, spec.productId)]);
  return { ...spec, metricIds: [] };
}

export async function getSpecification(auth: AuthContext, id: string): Promise<Specification> {
  const spec = await getRecord<StoredSpecification>(specificationEntity, auth.organizationId, id, {
    includeDeleted: true,
  });
  return withLinks(spec, await listSpecLinks(auth.organizationId, id));
}

export async function listSpecifications(
  auth: AuthContext,
  query: SpecificationListQuery,
): Promise<Page<Specification>> {
  const [records, links] = await Promise.all([
    query.productIds
      ? listProductRecords<StoredSpecification>(specificationEntity, auth.organizationId, query.productIds)
      : listOrgRecords<StoredSpecification>(specificationEntity, auth.organizationId),
    listOrgLinks(auth.organizationId),
  ]);
  return applyList(
    records.map((r) => withLinks(r, links)),
    query,
    {
      sortable: ['createdAt', 'type', 'testType', 'productId'],
      filters: [
        ...anyOf<Specification>(query.productIds, (s) => s.productId),
        ...anyOf<Specification>(query.types, (s) => s.type),
        ...anyOf<Specification>(query.testTypes, (s) => s.testType),
        ...intersects<Specification>(query.metricIds, (s) => s.metricIds),
        ...(query.description ? [(s: Specification) => containsIgnoreCase(s.description, query.description!)] : []),
      ],
    },
  );
}

export async function updateSpecification(
  auth: AuthContext,
  id: string,
  body: SpecificationUpdate,
): Promise<Specification> {
  rejectImmutable(body, ['productId']);
  if ('metricIds' in body) rejectImmutable(body, ['metricIds']);
  const current = await getRecord<StoredSpecification>(specificationEntity, auth.organizationId, id);
  const { set, remove } = patchOf(body, ['description', 'type', 'testType', 'testVariant']);
  for (const field of remove) set[field] = null;
  checkSpecification({ ...current, ...(set as Partial<StoredSpecification>) });
  const updated = await updateRecord<StoredSpecification>(specificationEntity, auth.organizationId, id, set);
  return withLinks(updated, await listSpecLinks(auth.organizationId, id));
}

export async function deleteSpecification(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  await getRecord<StoredSpecification>(specificationEntity, auth.organizationId, id);
  const links = await listSpecLinks(auth.organizationId, id);
  for (let i = 0; i < links.length; i += 100) {
    await transact(links.slice(i, i + 100).map((l) => linkDelete(auth.organizationId, l.metricId, l.specificationId)));
  }
  const deletedAt = clock.now().toISOString();
  await updateRecord(specificationEntity, auth.organizationId, id, { deletedAt });
  return { id, deletedAt };
}

/** Each metric must be visible to the caller (own or predefined) and live: 403 another's, 404 unknown or deleted. */
async function requireLinkableMetrics(auth: AuthContext, ids: string[]): Promise<void> {
  for (const id of ids) {
    const metric = await getVisibleMetric(auth.organizationId, id);
    if (metric.deletedAt) throw new NotFoundError(`metric ${id} not found`);
  }
}

/** POST /specifications/{id}/metrics: one transaction of link items; already linked is fine. */
export async function linkMetrics(
  auth: AuthContext,
  specId: string,
  body: MetricLinkBody,
): Promise<{ specificationId: string; metricIds: string[] }> {
  const spec = await getRecord<StoredSpecification>(specificationEntity, auth.organizationId, specId);
  await requireLinkableMetrics(auth, body.metricIds);
  await transact(
    body.metricIds.map((metricId) =>
      linkPut({ metricId, specificationId: spec.id, productId: spec.productId, organizationId: auth.organizationId }),
    ),
  );
  return {
    specificationId: specId,
    metricIds: (await listSpecLinks(auth.organizationId, specId)).map((l) => l.metricId).sort(),
  };
}

/** DELETE /specifications/{id}/metrics: removes the links named (not linked is fine). */
export async function unlinkMetrics(
  auth: AuthContext,
  specId: string,
  body: MetricLinkBody,
): Promise<{ specificationId: string; metricIds: string[] }> {
  await getRecord<StoredSpecification>(specificationEntity, auth.organizationId, specId);
  await requireLinkableMetrics(auth, body.metricIds);
  await transact(body.metricIds.map((metricId) => linkDelete(auth.organizationId, metricId, specId)));
  return {
    specificationId: specId,
    metricIds: (await listSpecLinks(auth.organizationId, specId)).map((l) => l.metricId).sort(),
  };
}

/** GET /specifications/{id}/metrics: the linked metrics (live ones), as metrics. */
export async function listLinkedMetrics(auth: AuthContext, specId: string): Promise<Page<Metric>> {
  await getRecord<StoredSpecification>(specificationEntity, auth.organizationId, specId, { includeDeleted: true });
  const metrics = (await visibleMetrics(auth.organizationId)).filter((m) => m.specificationIds.includes(specId));
  return applyList(metrics, {}, { sortable: ['createdAt'] });
}
