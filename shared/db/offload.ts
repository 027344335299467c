import { randomBytes } from 'node:crypto';
import { deleteObjects, putObject, readObjectText } from '../storage/s3.js';
import { orgPrefix } from '../storage/uri.js';

/**
 * Large values: a field that would push an item past its budget is stored in S3
 * under `orgs/<org>/<kind>/<id>/<field>.json` and replaced in the item by null, with the item's
 * `_offloaded` map (field → object key) pointing at it. Objects are written before the item and
 * read back whole with it, so a reader never sees a half-stored record.
 */

type Item = Record<string, unknown>;

/** DynamoDB stops at 400 KB an item; this leaves room for keys, indexes and later small updates. */
export const ITEM_BUDGET_BYTES = 350 * 1024;
/** TransactWriteItems stops at 4 MB in all; what a transaction's items may add up to. */
export const TRANSACTION_BUDGET_BYTES = 4 * 1024 * 1024 - 256 * 1024;
/** The attribute holding the map of offloaded fields (internal: `_` fields never reach a client). */
export const OFFLOADED = '_offloaded';

/** How many bytes a value takes in an item (UTF-8 of its JSON: close to, and above, DynamoDB's count). */
export function sizeOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

/** What a field offloaded leaves behind: null in place, and its entry in the `_offloaded` map. */
const POINTER_BYTES = 200;

/**
 * Which fields to move so the item fits `budget` bytes: the largest first, only as many as needed.
 * Pure. Fields absent or null are never chosen.
 */
export function planOffload(item: Item, fields: readonly string[], budget: number): string[] {
  let total = sizeOf(item);
  if (total <= budget) return [];
  const present = fields
    .filter((f) => item[f] !== undefined && item[f] !== null)
    .map((f) => ({ f, bytes: sizeOf(item[f]) }));
  present.sort((a, b) => b.bytes - a.bytes || a.f.localeCompare(b.f));
  const out: string[] = [];
  for (const { f, bytes } of present) {
    if (total <= budget) break;
    out.push(f);
    total -= bytes - POINTER_BYTES;
  }
  return out;
}

/** The per-item budget when `count` items go into one request of at most `requestBudget` bytes. */
export function budgetPerItem(
  count: number,
  itemBudget = ITEM_BUDGET_BYTES,
  requestBudget = TRANSACTION_BUDGET_BYTES,
): number {
  return Math.min(itemBudget, Math.floor(requestBudget / Math.max(1, count)));
}

/** Where one field of one record lives in S3. `rev` distinguishes a rewrite from the first write. */
export function offloadKey(orgId: string, kind: string, id: string, field: string, rev?: string): string {
  return `${orgPrefix(orgId)}${kind}/${id}/${field}${rev ? `.${rev}` : ''}.json`;
}

export interface OffloadTarget {
  /** Owner organization, record kind (a path segment such as `inferenceResults`) and id. */
  orgId: string;
  kind: string;
  id: string;
  /** Fields that may move, in no particular order. */
  fields: readonly string[];
  budget?: number;
  /**
   * Give the objects fresh names: needed when the record may already exist (a client-chosen id,
   * an update), so a failed write can never overwrite what a stored item points at.
   */
  fresh?: boolean;
  /** Fields whose value is unchanged and already stored at this key (an update): not written again. */
  stored?: Record<string, string>;
}

export interface OffloadResult {
  /** The item to write: offloaded fields null, `_offloaded` set when any moved. */
  item: Item;
  /** The object keys written by this call (to remove if the item write fails). */
  written: string[];
}

/** Thrown when an item cannot fit even with every movable field moved (a schema gap, not a client error). */
export class ItemTooLargeError extends Error {}

/**
 * Moves what does not fit to S3 (objects first, in parallel) and returns the item to write.
 * On a failed object write, the objects already written are removed before the error propagates.
 */
export async function offloadItem(item: Item, target: OffloadTarget): Promise<OffloadResult> {
  const base: Item = { ...item };
  delete base[OFFLOADED];
  const budget = target.budget ?? ITEM_BUDGET_BYTES;
  const fields = planOffload(base, target.fields, budget);
  if (fields.length === 0) return { item: base, written: [] };
  const rev = target.fresh ? freshRev() : undefined;
  const map: Record<string, string> = {};
  const toWrite: string[] = [];
  for (const f of fields) {
    const kept = target.stored?.[f];
    map[f] = kept ?? offloadKey(target.orgId, target.kind, target.id, f, rev);
    if (!kept) toWrite.push(f);
  }
  const puts = await Promise.allSettled(
    toWrite.map((f) => putObject(map[f]!, JSON.stringify(base[f]), 'application/json')),
  );
  const written = toWrite.filter((_, i) => puts[i]!.status === 'fulfilled').map((f) => map[f]!);
  const failed = puts.find((p): p is PromiseRejectedResult => p.status === 'rejected');
  if (failed) {
    await discardObjects(written);
    throw failed.reason;
  }
  const out: Item = { ...base, [OFFLOADED]: map };
  for (const f of fields) out[f] = null;
  if (sizeOf(out) > budget + fields.length * POINTER_BYTES) {
    await discardObjects(written);
    throw new ItemTooLargeError(`a ${target.kind} item stays over ${budget} bytes after moving ${fields.join(', ')}`);
  }
  return { item: out, written };
}

/** Offloads several items bound for one request: each gets its share of `requestBudget`. */
export async function offloadItems(
  entries: { item: Item; target: Omit<OffloadTarget, 'budget'> }[],
  options: { itemBudget?: number; requestBudget?: number } = {},
): Promise<OffloadResult[]> {
  const budget = budgetPerItem(entries.length, options.itemBudget, options.requestBudget);
  const settled = await Promise.allSettled(entries.map((e) => offloadItem(e.item, { ...e.target, budget })));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await discardObjects(settled.flatMap((s) => (s.status === 'fulfilled' ? s.value.written : [])));
    throw failed.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<OffloadResult>).value);
}

/** The offloaded-field map of a stored item (empty when none). */
export function offloadedOf(item: Item | undefined): Record<string, string> {
  const map = item?.[OFFLOADED];
  return map && typeof map === 'object' ? (map as Record<string, string>) : {};
}

/** A stored item with its offloaded fields read back (in parallel); the map itself stays. */
export async function restoreItem<T extends Item | undefined>(item: T): Promise<T> {
  const map = offloadedOf(item);
  const entries = Object.entries(map);
  if (!item || entries.length === 0) return item;
  const values = await Promise.all(entries.map(([, key]) => readObjectText(key)));
  const out: Item = { ...item };
  entries.forEach(([field], i) => {
    const text = values[i];
    out[field] = text === undefined ? null : JSON.parse(text);
  });
  return out as T;
}

/** Items restored at once: parallel, without opening thousands of S3 reads for one long session. */
const RESTORE_CONCURRENCY = 32;

/** Restores a page of items in parallel (at most 32 items at a time), keeping their order. */
export async function restoreItems<T extends Item>(items: T[]): Promise<T[]> {
  const out: T[] = new Array<T>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await restoreItem(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RESTORE_CONCURRENCY, items.length) }, worker));
  return out;
}

/** Removes objects; best effort (an object left behind is never read: no item points at it). */
export async function discardObjects(keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await deleteObjects(keys).catch(() => undefined);
}

/** Objects a stored item pointed at that its replacement no longer points at. */
export function supersededObjects(before: Item | undefined, after: Item): string[] {
  const kept = new Set(Object.values(offloadedOf(after)));
  return Object.values(offloadedOf(before)).filter((k) => !kept.has(k));
}

function freshRev(): string {
  return `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}
