import type { AuthContext } from '../../auth/context.js';
import { getRecord, listOrgRecords, listProductRecords, softDeleteWrite, transact } from '../../db/catalog.js';
import { endpointSecretsDelete } from '../../db/endpoint-secrets.js';
import { ConflictError } from '../../errors.js';
import type { EndpointConnectionListQuery } from '../../schemas/endpoint-connections.js';
import type { Version } from '../../schemas/products.js';
import { endpointConnectionEntity, versionEntity } from '../common/entities.js';
import { nowIso } from '../common/ids.js';
import { anyOf, applyList, containsIgnoreCase, type Page } from '../common/list.js';
import { CONNECTION_REFS } from './versions.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';

// Reads and delete of endpoint connections, apart from the write rules (templates, JSONPath, JSON
// Schema): the get, list and delete functions bundle none of their libraries.

export function getEndpointConnection(auth: AuthContext, id: string): Promise<EndpointConnection> {
  return getRecord<EndpointConnection>(endpointConnectionEntity, auth.organizationId, id, { includeDeleted: true });
}

export async function listEndpointConnections(
  auth: AuthContext,
  query: EndpointConnectionListQuery,
): Promise<Page<EndpointConnection>> {
  const records = query.productIds
    ? await listProductRecords<EndpointConnection>(endpointConnectionEntity, auth.organizationId, query.productIds)
    : await listOrgRecords<EndpointConnection>(endpointConnectionEntity, auth.organizationId);
  return applyList(records, query, {
    sortable: ['createdAt', 'name', 'url', 'type', 'httpMethod', 'authType', 'productId', 'timeout'],
    filters: [
      ...anyOf<EndpointConnection>(query.productIds, (r) => r.productId),
      ...anyOf<EndpointConnection>(query.types, (r) => r.type),
      ...anyOf<EndpointConnection>(query.httpMethods, (r) => r.httpMethod),
      ...anyOf<EndpointConnection>(query.authTypes, (r) => r.authType),
      ...(query.url ? [(r: EndpointConnection) => containsIgnoreCase(r.url, query.url!)] : []),
    ],
  });
}

/** A connection a live version uses cannot be deleted or change type (409 naming the version). */
export async function assertNotReferenced(
  auth: AuthContext,
  connection: EndpointConnection,
  action: string,
): Promise<void> {
  const versions = await listProductRecords<Version>(versionEntity, auth.organizationId, [connection.productId]);
  const user = versions.find((v) => CONNECTION_REFS.some(([field]) => v[field] === connection.id));
  if (user)
    throw new ConflictError(`cannot ${action} endpoint connection ${connection.id}: version ${user.id} uses it`);
}

export async function deleteEndpointConnection(
  auth: AuthContext,
  id: string,
): Promise<{ id: string; deletedAt: string }> {
  const current = await getRecord<EndpointConnection>(endpointConnectionEntity, auth.organizationId, id);
  await assertNotReferenced(auth, current, 'delete');
  const deletedAt = nowIso();
  await transact([
    softDeleteWrite(endpointConnectionEntity, auth.organizationId, id, deletedAt),
    endpointSecretsDelete(auth.organizationId, id),
  ]);
  return { id, deletedAt };
}
