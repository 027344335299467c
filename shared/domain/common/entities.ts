import type { CatalogEntity, CatalogRecord, TransactItem } from '../../db/catalog.js';
import { endpointSecretsDelete } from '../../db/endpoint-secrets.js';
import { linkDelete, listSpecLinks } from '../../db/metrics.js';
import { releaseVersionName } from '../../db/versions.js';

/** Every catalog entity in one place: its table type, its label in messages, its indexes. */
export const productEntity: CatalogEntity = { type: 'PRODUCT', label: 'product', byProduct: false };
export const versionEntity: CatalogEntity = { type: 'VERSION', label: 'version', byProduct: true };
export const endpointConnectionEntity: CatalogEntity = { type: 'ECON', label: 'endpoint connection', byProduct: true };
export const phoneConnectionEntity: CatalogEntity = { type: 'PHONE', label: 'phone connection', byProduct: true };
export const specificationEntity: CatalogEntity = { type: 'SPEC', label: 'specification', byProduct: true };
export const testEntity: CatalogEntity = { type: 'TEST', label: 'test', byProduct: true };
export const testCaseEntity: CatalogEntity = { type: 'TCASE', label: 'test case', byProduct: false };
export const monitorEntity: CatalogEntity = { type: 'MONITOR', label: 'monitor', byProduct: true };
export const webhookEntity: CatalogEntity = { type: 'WEBHOOK', label: 'webhook', byProduct: false };
export const reviewQueueEntity: CatalogEntity = { type: 'RQUEUE', label: 'review queue', byProduct: true };

type ChildRecord = CatalogRecord & Record<string, unknown>;

/** Records that hang off a product and are soft-deleted with it, with the extra items each delete changes. */
export const productChildren: {
  entity: CatalogEntity;
  onDelete?: (record: ChildRecord) => TransactItem[] | Promise<TransactItem[]>;
  removeOnDelete?: string[];
}[] = [
  {
    entity: versionEntity,
    // Frees the version's name within the product.
    onDelete: (r) => [releaseVersionName(String(r.productId), String(r.name))],
  },
  {
    entity: endpointConnectionEntity,
    // Secrets of a deleted connection are never needed again.
    onDelete: (r) => [endpointSecretsDelete(r.organizationId, r.id)],
  },
  { entity: phoneConnectionEntity },
  { entity: testEntity },
  // A deleted monitor leaves the scanner's sharded index.
  { entity: monitorEntity, removeOnDelete: ['gsi2pk', 'gsi2sk'] },
  {
    entity: specificationEntity,
    // Links of a deleted specification go with it.
    onDelete: async (r) =>
      (await listSpecLinks(r.organizationId, r.id)).map((l) =>
        linkDelete(r.organizationId, l.metricId, l.specificationId),
      ),
  },
];
