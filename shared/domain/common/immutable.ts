import { ValidationError } from '../../errors.js';

/** PATCH rule: an immutable field in the body is a 400 naming it. */
export function rejectImmutable(body: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) {
    if (field in body) throw new ValidationError(`${field} cannot be changed`);
  }
}

/** Splits a PATCH body into attributes to set and (nullable) attributes to clear. */
export function patchOf(
  body: Record<string, unknown>,
  fields: readonly string[],
): { set: Record<string, unknown>; remove: string[] } {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const field of fields) {
    if (!(field in body)) continue;
    const value = body[field];
    if (value === undefined) continue;
    if (value === null) remove.push(field);
    else set[field] = value;
  }
  return { set, remove };
}
