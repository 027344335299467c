import { KEY_ATTRIBUTES } from './table.js';

/** Strips storage attributes (keys, entity, internal `_` fields) from an item. */
export function toRecord<T>(item: Record<string, unknown>, options: { keepInternal?: boolean } = {}): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    if (KEY_ATTRIBUTES.has(k) || (k.startsWith('_') && !options.keepInternal)) continue;
    out[k] = v;
  }
  return out as T;
}
