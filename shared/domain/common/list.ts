import { DEFAULT_LIMIT } from '../../schemas/common.js';
import { ValidationError } from '../../errors.js';
import { parseDateTime } from './dates.js';

/** The query parameters every list takes, after validation. */
export interface ListQuery {
  ids?: string[];
  names?: string[];
  name?: string;
  fromCreatedAt?: string;
  toCreatedAt?: string;
  sort?: string[];
  limit?: number;
  offset?: number;
}

export interface ListSpec<T> {
  /** Fields a client may sort by. */
  sortable: readonly (keyof T & string)[];
  /** Sort when the query gives none (default `createdAt:desc`). */
  defaultSort?: string[];
  /** Resource-specific filters: each returns false to drop a record. */
  filters?: ((record: T) => boolean)[];
}

export interface Page<T> {
  items: T[];
  total: number;
}

export function containsIgnoreCase(haystack: unknown, needle: string): boolean {
  return typeof haystack === 'string' && haystack.toLocaleLowerCase('en').includes(needle.toLocaleLowerCase('en'));
}

/** Keeps records whose `field` is one of `values` (no filter when `values` is undefined). */
export function anyOf<T>(values: readonly unknown[] | undefined, get: (r: T) => unknown): ((r: T) => boolean)[] {
  if (!values) return [];
  const set = new Set(values);
  return [(r: T) => set.has(get(r))];
}

/** Keeps records where any of `get(r)` is one of `values`. */
export function intersects<T>(
  values: readonly unknown[] | undefined,
  get: (r: T) => readonly unknown[] | undefined,
): ((r: T) => boolean)[] {
  if (!values) return [];
  const set = new Set(values);
  return [(r: T) => (get(r) ?? []).some((v) => set.has(v))];
}

/** Parses `sort=field:dir` entries against the sortable fields; default `createdAt:desc`. */
export function parseSort(
  sort: string[] | undefined,
  sortable: readonly string[],
  fallback: string[] = ['createdAt:desc'],
): { field: string; dir: 1 | -1 }[] {
  const entries = sort && sort.length > 0 ? sort : fallback;
  return entries.map((entry) => {
    const [field, dir] = entry.split(':') as [string, string];
    if (!sortable.includes(field)) {
      throw new ValidationError(`sort field '${field}' is not sortable; use one of: ${sortable.join(', ')}`);
    }
    return { field, dir: dir === 'asc' ? 1 : -1 };
  });
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b), 'en');
}

/**
 * Filters, sorts and pages records already read from one partition or index. The total counts
 * every match, before limit and offset. Ties are broken by id, so pages are stable.
 */
export function applyList<T extends { id: string; createdAt: string; name?: string }>(
  records: T[],
  query: ListQuery,
  spec: ListSpec<T>,
): Page<T> {
  const sortKeys = parseSort(query.sort, spec.sortable, spec.defaultSort);
  const from = query.fromCreatedAt ? parseDateTime(query.fromCreatedAt, 'fromCreatedAt') : undefined;
  const to = query.toCreatedAt ? parseDateTime(query.toCreatedAt, 'toCreatedAt') : undefined;
  if (from !== undefined && to !== undefined && from > to)
    throw new ValidationError('fromCreatedAt must not be after toCreatedAt');
  const filters: ((r: T) => boolean)[] = [
    ...anyOf<T>(query.ids, (r) => r.id),
    ...anyOf<T>(query.names, (r) => r.name),
    ...(query.name ? [(r: T) => containsIgnoreCase(r.name, query.name!)] : []),
    ...(from !== undefined ? [(r: T) => Date.parse(r.createdAt) >= from] : []),
    ...(to !== undefined ? [(r: T) => Date.parse(r.createdAt) <= to] : []),
    ...(spec.filters ?? []),
  ];
  const matches = records.filter((r) => filters.every((f) => f(r)));
  matches.sort((a, b) => {
    for (const { field, dir } of sortKeys) {
      const c = compareValues((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]);
      if (c !== 0) return c * dir;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  const offset = query.offset ?? 0;
  const limit = query.limit ?? DEFAULT_LIMIT;
  return { items: matches.slice(offset, offset + limit), total: matches.length };
}
