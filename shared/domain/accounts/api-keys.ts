import { generateApiKey, type GeneratedKey } from '../../auth/api-key.js';
import type { AuthContext, Plan, Role } from '../../auth/context.js';
import { apiKeyEntity, insertApiKey, keyHashOf, revokeItems } from '../../db/organizations.js';
import { getRecord, listOrgRecords, transact, throwMissing } from '../../db/catalog.js';
import { NotFoundError } from '../../errors.js';
import { keys } from '../../db/keys.js';
import { queryPrefix } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import { newId, nowIso } from '../common/ids.js';
import { applyList, type ListQuery, type Page } from '../common/list.js';
import type { ApiKeyRecord, Organization } from './organization.js';

/** The answer to a key creation: the record plus the key itself, shown this once. */
export type CreatedApiKey = ApiKeyRecord & { key: string };

function keyRecord(orgId: string, userId: string, role: Role, name: string, generated: GeneratedKey): ApiKeyRecord {
  return {
    id: newId('apiKey'),
    organizationId: orgId,
    userId,
    role,
    name,
    last4: generated.last4,
    createdAt: nowIso(),
  };
}

export async function createApiKey(auth: AuthContext, name: string): Promise<CreatedApiKey> {
  const generated = generateApiKey();
  // Keys made through the API are MEMBER keys of the caller's user; ADMIN keys come only from the admin CLI.
  const record = keyRecord(auth.organizationId, auth.userId, 'MEMBER', name, generated);
  await insertApiKey(record, generated);
  return { ...record, key: generated.key };
}

export async function getApiKey(auth: AuthContext, id: string): Promise<ApiKeyRecord> {
  return getRecord<ApiKeyRecord>(apiKeyEntity, auth.organizationId, id, { includeDeleted: true });
}

export async function listApiKeys(
  auth: AuthContext,
  query: ListQuery & { includeRevoked?: boolean },
): Promise<Page<ApiKeyRecord>> {
  const records = query.includeRevoked
    ? await listAllKeys(auth.organizationId)
    : await listOrgRecords<ApiKeyRecord>(apiKeyEntity, auth.organizationId);
  return applyList(records, query, { sortable: ['createdAt', 'name'] });
}

async function listAllKeys(orgId: string): Promise<ApiKeyRecord[]> {
  const { pk, skPrefix } = keys.catalogPrefix(orgId, 'APIKEY');
  const items = await queryPrefix(pk, skPrefix);
  return items.map((i) => toRecord<ApiKeyRecord>(i));
}

export async function revokeApiKey(
  auth: AuthContext,
  id: string,
): Promise<{ id: string; revokedAt: string; deletedAt: string }> {
  const current = await getRecord<ApiKeyRecord>(apiKeyEntity, auth.organizationId, id);
  const hash = await keyHashOf(auth.organizationId, current.id);
  if (!hash) await throwMissing(apiKeyEntity, auth.organizationId, id);
  const at = nowIso();
  await transact(revokeItems(auth.organizationId, id, hash!, at), (codes) =>
    codes[0] === 'ConditionalCheckFailed' ? new NotFoundError(`API key ${id} not found`) : undefined,
  );
  return { id, revokedAt: at, deletedAt: at };
}

/** Creates an organization with its first key (admin CLI, local seed). */
export async function createOrganizationWithKey(input: {
  name: string;
  plan: Plan;
  admin: boolean;
  monthlyCredits: number | null;
  key?: GeneratedKey;
  organizationId?: string;
}): Promise<{ organization: Organization; apiKey: CreatedApiKey }> {
  const generated = input.key ?? generateApiKey();
  const organization: Organization = {
    id: input.organizationId ?? newId('organization'),
    name: input.name,
    plan: input.plan,
    monthlyCredits: input.monthlyCredits,
    createdAt: nowIso(),
  };
  const record = keyRecord(
    organization.id,
    newId('user'),
    input.admin ? 'ADMIN' : 'MEMBER',
    `${input.name} first key`,
    generated,
  );
  await insertApiKey(record, generated, organization);
  return { organization, apiKey: { ...record, key: generated.key } };
}
