import { GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys, type CatalogType } from './keys.js';
import { isConditionalCheckFailed, transactionCancellationCodes } from './errors.js';
import { batchGet, queryIndex, queryPrefix } from './query.js';
import { toRecord } from './records.js';
import { allOf, LIVE, updateOf, type Condition } from './update.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';

type Item = Record<string, unknown>;
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A catalog record: owned by an organization, soft-deletable. */
export interface CatalogRecord {
  id: string;
  organizationId: string;
  createdAt: string;
  deletedAt?: string;
  productId?: string;
}

export interface CatalogEntity {
  type: CatalogType;
  /** Used in messages: "phone connection phc_… not found". */
  label: string;
  /** Indexed on gsi1 by product. */
  byProduct: boolean;
}

export function itemFor<T extends CatalogRecord>(entity: CatalogEntity, record: T): Item {
  const fields = { ...record } as unknown as Item;
  return {
    ...keys.catalog(record.organizationId, entity.type, record.id),
    ...(entity.byProduct && record.productId
      ? keys.byProduct(record.productId, entity.type, record.createdAt, record.id)
      : {}),
    entity: entity.type,
    ...fields,
  };
}

/**
 * The put of an item a repository built (and offload.ts may have lightened), for a transaction:
 * fails when its key is taken.
 */
export function newItemWrite(item: Item): TransactItem {
  return { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** The Put of a new record and its owner pointer, for a transaction. */
export function putNewItems<T extends CatalogRecord>(
  entity: CatalogEntity,
  record: T,
  item: Item = itemFor(entity, record),
): TransactItem[] {
  return [
    newItemWrite(item),
    newItemWrite({
      ...keys.idOwner(record.id),
      entity: 'ID',
      organizationId: record.organizationId,
      type: entity.type,
    }),
  ];
}

/** Creates a record (and any extra items) in one transaction. */
export async function createRecord<T extends CatalogRecord>(
  entity: CatalogEntity,
  record: T,
  extra: TransactItem[] = [],
  item?: Item,
): Promise<T> {
  await transact([...putNewItems(entity, record, item), ...extra], (codes) => {
    if (codes[0] === 'ConditionalCheckFailed' || codes[1] === 'ConditionalCheckFailed') {
      return new ConflictError(`${entity.label} ${record.id} already exists`);
    }
    return undefined;
  });
  return record;
}

/**
 * Runs a transaction; a cancellation is translated by `translate` (given the per-item reason
 * codes) or, failing that, to a 409 (a concurrent change).
 */
export async function transact(
  items: TransactItem[],
  translate?: (codes: string[]) => Error | undefined,
): Promise<void> {
  if (items.length === 0) return;
  if (items.length > 100) throw new ValidationError('too many items change in one request (at most 100)');
  for (let attempt = 1; ; attempt++) {
    try {
      await doc.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const codes = transactionCancellationCodes(error);
      if (!codes) throw error;
      // Two transactions touching one item: the loser is cancelled with TransactionConflict and
      // may simply run again (every write here is conditional, so a retry is safe).
      if (codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed') && attempt < 6) {
        await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
        continue;
      }
      throwTranslated(codes, error, translate);
    }
  }
}

/**
 * A conditional update, alone or in one transaction with `items` (e.g. the event its change
 * causes); false when the update's own condition failed.
 */
export async function updateIf(
  update: NonNullable<TransactItem['Update']>,
  items: TransactItem[] = [],
): Promise<boolean> {
  try {
    if (items.length === 0) await doc.send(new UpdateCommand(update));
    else
      await transact([{ Update: update }, ...items], (codes) =>
        codes[0] === 'ConditionalCheckFailed' ? new ConditionFailed() : undefined,
      );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error) || error instanceof ConditionFailed) return false;
    throw error;
  }
}
class ConditionFailed extends Error {}

function throwTranslated(codes: string[], error: unknown, translate?: (codes: string[]) => Error | undefined): never {
  const translated = translate?.(codes);
  if (translated) throw translated;
  if (codes.includes('TransactionConflict'))
    throw new ConflictError('a concurrent request changed the same records; retry');
  if (codes.includes('ConditionalCheckFailed'))
    throw new ConflictError('the records changed while this request ran; retry');
  throw error;
}

/** Reads one record by id within the caller's organization; 403 for another's, 404 for none. */
export async function getRecord<T extends CatalogRecord>(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  options: {
    includeDeleted?: boolean;
    consistent?: boolean;
    restore?: (item: Record<string, unknown>) => Promise<Record<string, unknown>>;
  } = {},
): Promise<T> {
  const out = await doc.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.catalog(orgId, entity.type, id),
      ConsistentRead: options.consistent ?? true,
    }),
  );
  if (out.Item) {
    if (out.Item.deletedAt && !options.includeDeleted) throw new NotFoundError(`${entity.label} ${id} not found`);
    // `restore` (offload.ts restoreItem) reads fields kept in S3 back (test cases); without it
    // they are null. Passed by the caller, so a function that never reads S3 does not bundle it.
    return toRecord<T>(options.restore ? await options.restore(out.Item) : out.Item);
  }
  await throwMissing(entity, orgId, id);
  throw new NotFoundError(`${entity.label} ${id} not found`);
}

/** Throws 403 when the id belongs to another organization's record of this type, else 404. */
export async function throwMissing(entity: CatalogEntity, orgId: string, id: string): Promise<never> {
  const owner = await doc.send(new GetCommand({ TableName: tableName, Key: keys.idOwner(id) }));
  const item = owner.Item as { organizationId?: string; type?: string } | undefined;
  if (item && item.type === entity.type && item.organizationId !== orgId) {
    throw new ForbiddenError(`${entity.label} ${id} belongs to another organization`);
  }
  throw new NotFoundError(`${entity.label} ${id} not found`);
}

/**
 * Reads many records by id (all-or-nothing semantics for callers): returns them in the order
 * asked, or throws 403/404 naming the first id that is another organization's or absent/deleted.
 */
export async function getLiveRecords<T extends CatalogRecord>(
  entity: CatalogEntity,
  orgId: string,
  ids: string[],
): Promise<T[]> {
  const items = await batchGet(
    ids.map((id) => keys.catalog(orgId, entity.type, id)),
    true,
  );
  const byId = new Map(items.map((i) => [String(i.id), toRecord<T>(i)]));
  const out: T[] = [];
  for (const id of ids) {
    const record = byId.get(id);
    if (!record) await throwMissing(entity, orgId, id);
    else if (record.deletedAt) throw new NotFoundError(`${entity.label} ${id} not found`);
    else out.push(record);
  }
  return out;
}

/** Live records of one type of an organization (every page). */
export async function listOrgRecords<T extends CatalogRecord>(
  entity: CatalogEntity,
  orgId: string,
  options: { keepInternal?: boolean } = {},
): Promise<T[]> {
  const { pk, skPrefix } = keys.catalogPrefix(orgId, entity.type);
  const items = await queryPrefix(pk, skPrefix);
  return items.map((i) => toRecord<T>(i, options)).filter((r) => !r.deletedAt);
}

/** Live records of one type of some products (gsi1), restricted to the organization. */
export async function listProductRecords<T extends CatalogRecord>(
  entity: CatalogEntity,
  orgId: string,
  productIds: string[],
  options: { keepInternal?: boolean } = {},
): Promise<T[]> {
  const lists = await Promise.all(productIds.map((p) => queryIndex('gsi1', keys.byProductPartition(p, entity.type))));
  return lists
    .flat()
    .map((i) => toRecord<T>(i, options))
    .filter((r) => r.organizationId === orgId && !r.deletedAt);
}

/** An extra condition on an update (see shared/db/update.ts). */
export type ExtraCondition = Condition;

/** The Update of a live record, for a transaction or alone. */
export function updateItem(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  set: Record<string, unknown>,
  remove: string[] = [],
  extra?: ExtraCondition,
): NonNullable<TransactItem['Update']> {
  return updateOf(keys.catalog(orgId, entity.type, id), set, remove, allOf(LIVE, extra));
}

/**
 * The change of a live record's fields, as a write of a transaction; with `unchanged`, only while
 * each of those fields still holds the value given (the one the change was decided on).
 */
export function updateWrite(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  set: Record<string, unknown>,
  remove: string[] = [],
  unchanged: Record<string, unknown> = {},
): TransactItem {
  const fields = Object.entries(unchanged);
  const extra = fields.length
    ? {
        expression: fields.map((_, i) => `#was${i} = :was${i}`).join(' AND '),
        names: Object.fromEntries(fields.map(([k], i) => [`#was${i}`, k])),
        values: Object.fromEntries(fields.map(([, v], i) => [`:was${i}`, v])),
      }
    : undefined;
  return { Update: updateItem(entity, orgId, id, set, remove, extra) };
}

/** The soft delete of a live record (and the attributes that leave with it), as a write of a transaction. */
export function softDeleteWrite(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  deletedAt: string,
  remove: string[] = [],
): TransactItem {
  return updateWrite(entity, orgId, id, { deletedAt }, remove);
}

/** A condition that a record stays live while the transaction commits (one that refers to it). */
export function liveCheck(entity: CatalogEntity, orgId: string, id: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.catalog(orgId, entity.type, id),
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
    },
  };
}

/** Updates a live record and returns it; 404 when it is absent or deleted (403 when another's). */
export async function updateRecord<T extends CatalogRecord>(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  set: Record<string, unknown>,
  remove: string[] = [],
): Promise<T> {
  if (Object.keys(set).length === 0 && remove.length === 0) return getRecord<T>(entity, orgId, id);
  try {
    const out = await doc.send(
      new UpdateCommand({ ...updateItem(entity, orgId, id, set, remove), ReturnValues: 'ALL_NEW' }),
    );
    return toRecord<T>(out.Attributes ?? {});
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    await getRecord(entity, orgId, id); // throws the precise 403/404
    throw new NotFoundError(`${entity.label} ${id} not found`);
  }
}

/** Soft-deletes a live record; returns `{id, deletedAt}`. */
export async function softDeleteRecord(
  entity: CatalogEntity,
  orgId: string,
  id: string,
  at: string,
): Promise<{ id: string; deletedAt: string }> {
  await updateRecord(entity, orgId, id, { deletedAt: at });
  return { id, deletedAt: at };
}
