/**
 * What DynamoDB can store: the rules every request value meets before any schema
 * or domain code sees it. Pure functions, shared by the body parser, the `freeForm` ajv keyword
 * and the query normaliser, so each rule and its message is written once.
 */

/** ±(2^53 − 1): the SDK refuses larger numbers, and doubles lose integers beyond it. */
export const MAX_NUMBER = Number.MAX_SAFE_INTEGER;
/** DynamoDB numbers have a magnitude of at least 1e-130 (or are 0); smaller ones underflow. */
export const MIN_MAGNITUDE = 1e-130;
/** Levels of a whole request body (DynamoDB allows 32 levels in an item). */
export const MAX_BODY_DEPTH = 32;
/** Levels of a free-form object (`metadata`, `context`, …). */
export const FREE_FORM_MAX_DEPTH = 16;
/** Serialised size of a free-form object unless its field says more. */
export const FREE_FORM_MAX_BYTES = 64 * 1024;
/** Keys that would reach an object's prototype if any code assigned them. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const NUMBER_RULE = `must be a finite number within ±${MAX_NUMBER}`;
export const SMALL_NUMBER_RULE = `must be 0 or at least ${MIN_MAGNITUDE} in absolute value`;

/** Why a number cannot be stored, or undefined when it can. */
export function numberProblem(n: number): string | undefined {
  if (!Number.isFinite(n) || Math.abs(n) > MAX_NUMBER) return NUMBER_RULE;
  if (n !== 0 && Math.abs(n) < MIN_MAGNITUDE) return SMALL_NUMBER_RULE;
  return undefined;
}

/** A value's place for messages: `.a.b[2]` (appended to the field name). Long keys are cut. */
export function pathSegment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  const shown = key.length > 60 ? `${key.slice(0, 60)}…` : key;
  return `.${JSON.stringify(shown).slice(1, -1)}`;
}

export interface Problem {
  /** Where, relative to the checked value: '' or `.a[0].b`. */
  at: string;
  /** The rule, as the end of a sentence: "must not be nested deeper than 16 levels". */
  rule: string;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);

/**
 * The whole-body guard, run on the parsed JSON before schema validation: at most 32 levels,
 * numbers DynamoDB can hold, and strings that are valid Unicode (a lone surrogate such as
 * `"\ud800"` cannot be encoded as UTF-8). Returns the first problem found.
 */
export function bodyProblem(value: unknown): Problem | undefined {
  return walk(value, '', 1, MAX_BODY_DEPTH, false);
}

/**
 * The free-form guard (`metadata`, `context`, span data, …): at most `maxDepth` levels (the object
 * itself is level 1), no empty or prototype key, storable numbers, and at most `maxBytes` of JSON.
 */
export function freeFormProblem(
  value: unknown,
  options: { maxDepth?: number; maxBytes?: number } = {},
): Problem | undefined {
  const maxDepth = options.maxDepth ?? FREE_FORM_MAX_DEPTH;
  const maxBytes = options.maxBytes ?? FREE_FORM_MAX_BYTES;
  const found = walk(value, '', 1, maxDepth, true);
  if (found) return found;
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > maxBytes)
    return { at: '', rule: `must be at most ${maxBytes} bytes as JSON` };
  return undefined;
}

function walk(value: unknown, at: string, depth: number, maxDepth: number, checkKeys: boolean): Problem | undefined {
  if (typeof value === 'number') {
    const rule = numberProblem(value);
    return rule ? { at, rule } : undefined;
  }
  if (typeof value === 'string')
    return hasLoneSurrogate(value) ? { at, rule: 'must be valid Unicode (it has an unpaired surrogate)' } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > maxDepth) return { at, rule: `must not be nested deeper than ${maxDepth} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], at + pathSegment(i), depth + 1, maxDepth, checkKeys);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (hasLoneSurrogate(key))
      return { at, rule: 'has a key that is not valid Unicode (it has an unpaired surrogate)' };
    if (checkKeys && key === '') return { at, rule: 'has an empty key' };
    if (checkKeys && FORBIDDEN_KEYS.has(key)) return { at, rule: `key '${key}' is not allowed` };
    const found = walk((value as Record<string, unknown>)[key], at + pathSegment(key), depth + 1, maxDepth, checkKeys);
    if (found) return found;
  }
  return undefined;
}
