import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { toRecord } from './records.js';
import { createRecord, type CatalogEntity } from './catalog.js';
import { isConditionalCheckFailed } from './errors.js';
import { updateOf } from './update.js';
import { NotFoundError } from '../errors.js';
import type { ApiKeyRecord, Organization, Spend } from '../domain/accounts/organization.js';
import type { Role } from '../auth/context.js';
import type { GeneratedKey } from '../auth/api-key.js';

export const apiKeyEntity: CatalogEntity = { type: 'APIKEY', label: 'API key', byProduct: false };

export async function getOrganization(orgId: string): Promise<Organization | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.organization(orgId) }));
  return out.Item ? toRecord<Organization>(out.Item) : undefined;
}

export async function requireOrganization(orgId: string): Promise<Organization> {
  const org = await getOrganization(orgId);
  if (!org) throw new NotFoundError(`organization ${orgId} not found`);
  return org;
}

export async function getSpend(orgId: string, cycle: string): Promise<Spend> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.orgSpend(orgId, cycle) }));
  return { spentCredits: Number(out.Item?.spentCredits ?? 0), pendingCredits: Number(out.Item?.pendingCredits ?? 0) };
}

export async function updateOrganization(
  orgId: string,
  patch: Partial<Pick<Organization, 'plan' | 'monthlyCredits' | 'name'>>,
): Promise<Organization> {
  const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return requireOrganization(orgId);
  try {
    const out = await doc.send(
      new UpdateCommand({
        ...updateOf(keys.organization(orgId), Object.fromEntries(entries), [], { expression: 'attribute_exists(pk)' }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toRecord<Organization>(out.Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new NotFoundError(`organization ${orgId} not found`);
    throw error;
  }
}

/** The authorizer's read: the key's lookup item by the hash of its body. */
export async function findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.apiKeyLookup(hash) }));
  return out.Item ? toRecord<ApiKeyRecord>(out.Item) : undefined;
}

/** Stores a new key: its listing record, its lookup item (hash only) and, optionally, a new organization. */
export async function insertApiKey(
  record: ApiKeyRecord,
  generated: Pick<GeneratedKey, 'hash'>,
  newOrganization?: Organization,
): Promise<ApiKeyRecord> {
  const lookup = {
    Put: {
      TableName: tableName,
      Item: { ...keys.apiKeyLookup(generated.hash), entity: 'KEYLOOKUP', ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  const org = newOrganization
    ? [
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.organization(newOrganization.id), entity: 'ORG', ...newOrganization },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]
    : [];
  await createRecord(apiKeyEntity, { ...record, _hash: generated.hash } as ApiKeyRecord, [lookup, ...org]);
  return record;
}

/** Revokes a key: the listing record and the lookup item change together. */
export function revokeItems(orgId: string, id: string, hash: string, at: string) {
  return [
    {
      Update: {
        TableName: tableName,
        Key: keys.catalog(orgId, 'APIKEY', id),
        UpdateExpression: 'SET revokedAt = :at, deletedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: keys.apiKeyLookup(hash),
        UpdateExpression: 'SET revokedAt = :at, deletedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
  ];
}

/** The stored hash of a key (internal attribute of the listing record). */
export async function keyHashOf(orgId: string, id: string): Promise<string | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.catalog(orgId, 'APIKEY', id), ConsistentRead: true }),
  );
  return out.Item?._hash as string | undefined;
}

export type { Role };
