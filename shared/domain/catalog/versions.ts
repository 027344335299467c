import type { AuthContext } from '../../auth/context.js';
import {
  createRecord,
  getRecord,
  listOrgRecords,
  listProductRecords,
  liveCheck,
  softDeleteWrite,
  transact,
  type TransactItem,
} from '../../db/catalog.js';
import { ConflictError, ValidationError } from '../../errors.js';
import type { Version, VersionCreate, VersionListQuery, VersionUpdate } from '../../schemas/products.js';
import type { PhoneConnection } from '../../schemas/phone-connections.js';
import { endpointConnectionEntity, phoneConnectionEntity, versionEntity } from '../common/entities.js';
import { newId, nowIso } from '../common/ids.js';
import { patchOf, rejectImmutable } from '../common/immutable.js';
import { anyOf, applyList, type Page } from '../common/list.js';
import { requireLiveProduct } from './product-refs.js';
import { bodyReference } from '../common/references.js';
import { productLiveCheck } from './products.js';
import { claimVersionName, releaseVersionName, updateVersionNamed, versionIdHoldingName } from '../../db/versions.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';

/** Each connection reference of a version and the connection type it must name. */
export const CONNECTION_REFS = [
  ['conversationEndpointConnectionId', 'CONVERSATION'],
  ['initializationEndpointConnectionId', 'INITIALIZATION'],
  ['finalizationEndpointConnectionId', 'FINALIZATION'],
] as const;

type RefField = (typeof CONNECTION_REFS)[number][0];

/**
 * Checks that each given connection id names a live connection of the same product with the
 * matching type; returns ConditionChecks that keep it so while the write commits.
 */
async function checkConnectionRefs(
  auth: AuthContext,
  productId: string,
  refs: Partial<Record<RefField | 'phoneConnectionId', string | null>>,
): Promise<TransactItem[]> {
  const checks: TransactItem[] = [];
  if (refs.phoneConnectionId) {
    const id = refs.phoneConnectionId;
    const phone = await bodyReference(
      () => getRecord<PhoneConnection>(phoneConnectionEntity, auth.organizationId, id),
      'phoneConnectionId',
      id,
      'phone connection',
    );
    if (phone.productId !== productId) throw new ValidationError(`phoneConnectionId ${id} belongs to another product`);
    checks.push(liveCheck(phoneConnectionEntity, auth.organizationId, id));
  }
  for (const [field, type] of CONNECTION_REFS) {
    const id = refs[field];
    if (!id) continue;
    const connection = await bodyReference(
      () => getRecord<EndpointConnection>(endpointConnectionEntity, auth.organizationId, id),
      field,
      id,
      'endpoint connection',
    );
    if (connection.productId !== productId) throw new ValidationError(`${field} ${id} belongs to another product`);
    if (connection.type !== type)
      throw new ValidationError(`${field} must name a ${type} endpoint connection, not ${connection.type}`);
    checks.push(liveCheck(endpointConnectionEntity, auth.organizationId, id));
  }
  return checks;
}

export async function createVersion(auth: AuthContext, input: VersionCreate): Promise<Version> {
  await requireLiveProduct(auth, input.productId);
  const checks = await checkConnectionRefs(auth, input.productId, input);
  const version: Version = {
    id: newId('version'),
    organizationId: auth.organizationId,
    productId: input.productId,
    userId: auth.userId,
    name: input.name,
    description: input.description ?? '',
    modelId: input.modelId ?? null,
    systemPrompt: input.systemPrompt ?? null,
    conversationEndpointConnectionId: input.conversationEndpointConnectionId ?? null,
    initializationEndpointConnectionId: input.initializationEndpointConnectionId ?? null,
    finalizationEndpointConnectionId: input.finalizationEndpointConnectionId ?? null,
    phoneConnectionId: input.phoneConnectionId ?? null,
    createdAt: nowIso(),
  };
  const extra = [
    claimVersionName(version.productId, version.name, version.id),
    productLiveCheck(auth.organizationId, version.productId),
    ...checks,
  ];
  try {
    return await createRecord(versionEntity, version, extra);
  } catch (error) {
    if (error instanceof ConflictError) await explainConflict(version.productId, version.name, version.id);
    throw error;
  }
}

async function explainConflict(productId: string, name: string, ownId: string): Promise<void> {
  const holder = await versionIdHoldingName(productId, name);
  if (holder !== undefined && holder !== ownId)
    throw new ConflictError(`a version named '${name}' already exists in product ${productId}`);
}

/** A version as clients see it: versions stored before phone connections could be named read `phoneConnectionId: null`. */
export function versionView(v: Version): Version {
  return v.phoneConnectionId === undefined ? { ...v, phoneConnectionId: null } : v;
}

export async function getVersion(auth: AuthContext, id: string): Promise<Version> {
  return versionView(await getRecord<Version>(versionEntity, auth.organizationId, id, { includeDeleted: true }));
}

export async function listVersions(auth: AuthContext, query: VersionListQuery): Promise<Page<Version>> {
  const records = query.productIds
    ? await listProductRecords<Version>(versionEntity, auth.organizationId, query.productIds)
    : await listOrgRecords<Version>(versionEntity, auth.organizationId);
  return applyList(records.map(versionView), query, {
    sortable: ['createdAt', 'name', 'productId'],
    filters: anyOf<Version>(query.productIds, (r) => r.productId),
  });
}

export async function updateVersion(auth: AuthContext, id: string, body: VersionUpdate): Promise<Version> {
  rejectImmutable(body, ['productId']);
  const current = await getRecord<Version>(versionEntity, auth.organizationId, id);
  const { set, remove } = patchOf(body, [
    'name',
    'description',
    'modelId',
    'systemPrompt',
    'conversationEndpointConnectionId',
    'initializationEndpointConnectionId',
    'finalizationEndpointConnectionId',
    'phoneConnectionId',
  ]);
  // Cleared references are stored as null (the record always shows every field).
  for (const field of remove) set[field] = null;
  if (Object.keys(set).length === 0) return versionView(current);
  const checks = await checkConnectionRefs(auth, current.productId, body);
  // The name guard must move with the name: the update is conditional on the name it read.
  const items: TransactItem[] = [
    updateVersionNamed(versionEntity, auth.organizationId, id, set, current.name),
    ...checks,
  ];
  const renamed = typeof body.name === 'string' && body.name !== current.name;
  if (renamed) {
    items.push(claimVersionName(current.productId, body.name!, id));
    items.push(releaseVersionName(current.productId, current.name));
  }
  await transact(items, (codes) => {
    if (renamed && codes[items.length - 2] === 'ConditionalCheckFailed') {
      return new ConflictError(`a version named '${body.name}' already exists in product ${current.productId}`);
    }
    return undefined;
  });
  return versionView(await getRecord<Version>(versionEntity, auth.organizationId, id));
}

export async function deleteVersion(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  const current = await getRecord<Version>(versionEntity, auth.organizationId, id);
  const deletedAt = nowIso();
  await transact([
    softDeleteWrite(versionEntity, auth.organizationId, id, deletedAt),
    releaseVersionName(current.productId, current.name),
  ]);
  return { id, deletedAt };
}
