import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys, PLATFORM_ORG } from './keys.js';
import { queryIndex, queryIndexPartitions, queryPrefix } from './query.js';
import { toRecord } from './records.js';
import { throwMissing, type CatalogEntity, type TransactItem } from './catalog.js';
import type { StoredMetric } from '../schemas/metrics.js';

export const metricEntity: CatalogEntity = { type: 'METRIC', label: 'metric', byProduct: false };

/** The item of a metric: catalog key of its owner (or the platform) plus its family on gsi2. */
export function metricItem(metric: StoredMetric): Record<string, unknown> {
  return {
    ...keys.catalog(metric.organizationId ?? PLATFORM_ORG, 'METRIC', metric.id),
    ...keys.metricFamily(metric.metricGroupId, metric.createdAt, metric.id),
    entity: 'METRIC',
    ...metric,
  };
}

/** A metric visible to an organization: its own, or a predefined one. 403 for another's, 404 for none. */
export async function getVisibleMetric(orgId: string, id: string): Promise<StoredMetric> {
  for (const owner of [orgId, PLATFORM_ORG]) {
    const out = await doc.send(
      new GetCommand({ TableName: tableName, Key: keys.catalog(owner, 'METRIC', id), ConsistentRead: true }),
    );
    if (out.Item) return toRecord<StoredMetric>(out.Item);
  }
  return throwMissing(metricEntity, orgId, id);
}

export async function listOwnMetrics(orgId: string): Promise<StoredMetric[]> {
  const { pk, skPrefix } = keys.catalogPrefix(orgId, 'METRIC');
  return (await queryPrefix(pk, skPrefix)).map((i) => toRecord<StoredMetric>(i));
}

export async function listPredefinedMetrics(): Promise<StoredMetric[]> {
  const { pk, skPrefix } = keys.catalogPrefix(PLATFORM_ORG, 'METRIC');
  return (await queryPrefix(pk, skPrefix)).map((i) => toRecord<StoredMetric>(i));
}

/** Every metric of a revision family (any organization's: callers keep the visible ones). */
export async function listFamily(groupId: string): Promise<StoredMetric[]> {
  return (await queryIndex('gsi2', keys.metricFamilyPartition(groupId))).map((i) => toRecord<StoredMetric>(i));
}

/** The members of several families in one request (a monitor's results), by group id. */
export async function listFamilies(groupIds: string[]): Promise<Map<string, StoredMetric[]>> {
  const out = new Map<string, StoredMetric[]>(groupIds.map((g) => [g, []]));
  for (const item of await queryIndexPartitions(
    'gsi2',
    groupIds.map((g) => keys.metricFamilyPartition(g)),
  )) {
    const metric = toRecord<StoredMetric>(item);
    out.get(metric.metricGroupId)?.push(metric);
  }
  return out;
}

/** Writes a predefined metric (seed): idempotent, a platform item. */
export async function putPredefinedMetric(metric: StoredMetric): Promise<void> {
  await doc.send(new PutCommand({ TableName: tableName, Item: metricItem(metric) }));
}

// ---------- metric ↔ specification links ----------

export interface MetricLink {
  metricId: string;
  specificationId: string;
  productId: string;
  organizationId: string;
}

/**
 * Marks a live metric as having an own descendant (a metric created from it) since `at`; an older
 * mark stays. For the transaction that creates the descendant.
 */
export function markOwnLegacyWrite(orgId: string, metricId: string, at: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.catalog(orgId, 'METRIC', metricId),
      UpdateExpression: 'SET ownLegacyAt = if_not_exists(ownLegacyAt, :now)',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
      ExpressionAttributeValues: { ':now': at },
    },
  };
}

export function linkPut(link: MetricLink): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.metricLink(link.organizationId, link.metricId, link.specificationId),
        entity: 'MLINK',
        ...link,
      },
    },
  };
}

export function linkDelete(orgId: string, metricId: string, specId: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keys.metricLink(orgId, metricId, specId) } };
}

/** Every link of an organization (one Query). */
export async function listOrgLinks(orgId: string): Promise<MetricLink[]> {
  return (await queryPrefix(`ORG#${orgId}`, 'MLINK#', { consistent: true })).map((i) => toRecord<MetricLink>(i));
}

export async function listMetricLinks(orgId: string, metricId: string): Promise<MetricLink[]> {
  return (await queryPrefix(`ORG#${orgId}`, `MLINK#${metricId}#`, { consistent: true })).map((i) =>
    toRecord<MetricLink>(i),
  );
}

/** The links of one specification, read consistently from the organization's partition. */
export async function listSpecLinks(orgId: string, specId: string): Promise<MetricLink[]> {
  return (await queryPrefix(`ORG#${orgId}`, 'MLINK#', { consistent: true }))
    .map((i) => toRecord<MetricLink>(i))
    .filter((l) => l.specificationId === specId);
}
