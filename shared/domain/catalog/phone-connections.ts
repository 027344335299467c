import type { AuthContext } from '../../auth/context.js';
import {
  createRecord,
  getLiveRecords,
  getRecord,
  listOrgRecords,
  listProductRecords,
  transact,
  softDeleteWrite,
  updateRecord,
} from '../../db/catalog.js';
import { NotFoundError } from '../../errors.js';
import type {
  BatchIds,
  PhoneConnection,
  PhoneConnectionCreate,
  PhoneConnectionListQuery,
  PhoneConnectionUpdate,
} from '../../schemas/phone-connections.js';
import { newId, nowIso } from '../common/ids.js';
import { patchOf, rejectImmutable } from '../common/immutable.js';
import { anyOf, applyList, type Page } from '../common/list.js';
import { requireLiveProduct } from './product-refs.js';
import { phoneConnectionEntity } from '../common/entities.js';
import { productLiveCheck } from './products.js';

export async function createPhoneConnection(auth: AuthContext, input: PhoneConnectionCreate): Promise<PhoneConnection> {
  await requireLiveProduct(auth, input.productId);
  const record: PhoneConnection = {
    id: newId('phoneConnection'),
    organizationId: auth.organizationId,
    productId: input.productId,
    userId: auth.userId,
    name: input.name,
    phoneNumber: input.phoneNumber,
    agentSpeaksFirst: input.agentSpeaksFirst ?? false,
    createdAt: nowIso(),
  };
  return createRecord(phoneConnectionEntity, record, [productLiveCheck(auth.organizationId, input.productId)]);
}

export function getPhoneConnection(auth: AuthContext, id: string): Promise<PhoneConnection> {
  return getRecord<PhoneConnection>(phoneConnectionEntity, auth.organizationId, id, { includeDeleted: true });
}

export async function listPhoneConnections(
  auth: AuthContext,
  query: PhoneConnectionListQuery,
): Promise<Page<PhoneConnection>> {
  const records = query.productIds
    ? await listProductRecords<PhoneConnection>(phoneConnectionEntity, auth.organizationId, query.productIds)
    : await listOrgRecords<PhoneConnection>(phoneConnectionEntity, auth.organizationId);
  return applyList(records, query, {
    sortable: ['createdAt', 'name', 'phoneNumber', 'productId'],
    filters: [...anyOf<PhoneConnection>(query.productIds, (r) => r.productId)],
  });
}

export async function updatePhoneConnection(
  auth: AuthContext,
  id: string,
  body: PhoneConnectionUpdate,
): Promise<PhoneConnection> {
  rejectImmutable(body, ['productId']);
  const { set } = patchOf(body, ['name', 'phoneNumber', 'agentSpeaksFirst']);
  return updateRecord<PhoneConnection>(phoneConnectionEntity, auth.organizationId, id, set);
}

/** Soft-deletes every listed connection in one transaction, or none: 404/403 name the first bad id. */
export async function deletePhoneConnections(
  auth: AuthContext,
  body: BatchIds,
): Promise<{ ids: string[]; deletedAt: string }> {
  await getLiveRecords<PhoneConnection>(phoneConnectionEntity, auth.organizationId, body.ids);
  const deletedAt = nowIso();
  await transact(
    body.ids.map((id) => softDeleteWrite(phoneConnectionEntity, auth.organizationId, id, deletedAt)),
    (codes) => {
      const failed = codes.indexOf('ConditionalCheckFailed');
      return failed >= 0 ? new NotFoundError(`phone connection ${body.ids[failed]} not found`) : undefined;
    },
  );
  return { ids: body.ids, deletedAt };
}
