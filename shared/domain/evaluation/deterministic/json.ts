/** JSON outputs: whether the output is JSON, and whether its fields match the expected ones. */
import { listOf, maskSensitive, notJsonBecause, shortJson } from '../reason-text.js';
import { type Finding, MetricInputError } from './result.js';

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MetricInputError(`${what} is not valid JSON: ${notJsonBecause(text)}`);
  }
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MetricInputError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Deep, type-strict equality (1 ≠ "1", key order ignored, array order kept). */
export function deepEqual(a: unknown, b: unknown, normalise?: (s: string) => string): boolean {
  return firstDifference(a, b, '', normalise) === undefined;
}

interface Difference {
  path: string;
  /** What differs there, e.g. `expected 12, got "12"`. */
  what: string;
}

const has = (o: object, k: string) => Object.hasOwn(o, k);

/** `path.key`, or `path["odd key"]` when the key is not an identifier. */
export const member = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}${path ? '.' : ''}${key}` : `${path}[${JSON.stringify(key)}]`;

const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** The first place where `got` differs from `expected` (the rules of deepEqual), or undefined. */
function firstDifference(
  got: unknown,
  expected: unknown,
  path: string,
  normalise?: (s: string) => string,
): Difference | undefined {
  const plain = (): Difference => ({ path, what: `expected ${shortJson(expected)}, got ${shortJson(got)}` });
  if (typeof got === 'string' && typeof expected === 'string')
    return (normalise ? normalise(got) === normalise(expected) : got === expected) ? undefined : plain();
  if (typeof got !== typeof expected || got === null || expected === null)
    return got === expected ? undefined : plain();
  if (Array.isArray(got) || Array.isArray(expected)) {
    if (!Array.isArray(got) || !Array.isArray(expected))
      return { path, what: `expected ${typeName(expected)}, got ${typeName(got)}` };
    if (got.length !== expected.length) return { path, what: `expected ${expected.length} items, got ${got.length}` };
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(got[i], expected[i], `${path}[${i}]`, normalise);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof got === 'object') {
    const g = got as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    for (const k of Object.keys(e)) {
      if (!has(g, k)) return { path: member(path, k), what: 'missing' };
      const d = firstDifference(g[k], e[k], member(path, k), normalise);
      if (d) return d;
    }
    const extra = Object.keys(g).find((k) => !has(e, k));
    return extra === undefined ? undefined : { path: member(path, extra), what: 'not expected' };
  }
  return got === expected ? undefined : plain();
}

/** Case- and accent-insensitive form of a string. */
export function foldCaseAndAccents(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLocaleLowerCase('en')
    .normalize('NFC');
}

export function jsonFieldFinding(output: string, expected: string, normalised: boolean): Finding {
  const exp = asObject(parseJson(expected, 'expected_output'), 'expected_output');
  const out = asObject(parseJson(output, 'actual_output'), 'actual_output');
  const keys = Object.keys(exp);
  const how = normalised ? ' (strings compared case- and accent-insensitively)' : '';
  if (keys.length === 0) return { score: 1, detail: 'expected_output is {}: no key to compare' };
  const differing: string[] = [];
  for (const k of keys) {
    const name = maskSensitive(JSON.stringify(k));
    if (!has(out, k)) {
      differing.push(`${name} (missing)`);
      continue;
    }
    const d = firstDifference(out[k], exp[k], member('', k), normalised ? foldCaseAndAccents : undefined);
    if (d)
      differing.push(
        d.path === member('', k) ? `${name} (${d.what})` : `${name} (at ${maskSensitive(d.path)}: ${d.what})`,
      );
  }
  const score = 1 - differing.length / keys.length;
  if (differing.length === 0) {
    return {
      score,
      detail: `${keys.length === 1 ? `the expected key ${maskSensitive(JSON.stringify(keys[0]))} matches` : `all ${keys.length} expected keys match`}${how}`,
    };
  }
  return {
    score,
    detail: `${differing.length} of ${keys.length} expected ${keys.length === 1 ? 'key differs' : 'keys differ'}: ${listOf(differing, 4)}${how}`,
  };
}

/** 1 − share of the expected object's top-level keys whose values differ in the output; `{}` expected → 1. */
export function jsonFieldMatch(output: string, expected: string, normalised = false): number {
  return jsonFieldFinding(output, expected, normalised).score;
}

/** Whether a text parses as JSON, and what it is; `what` names the text (a check may read another parameter). */
export function isJsonFinding(output: string, what = 'actual_output'): Finding {
  if (output.trim() === '')
    return { score: 0, detail: `${what} is not JSON: it is ${output === '' ? 'empty' : 'only whitespace'}` };
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return { score: 0, detail: `${what} is not JSON: ${notJsonBecause(output)}` };
  }
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? `an array of ${value.length} item${value.length === 1 ? '' : 's'}`
        : typeof value === 'object'
          ? `an object with ${Object.keys(value).length} key${Object.keys(value).length === 1 ? '' : 's'}`
          : typeName(value);
  return { score: 1, detail: `${what} is JSON (${kind})` };
}

export function isJson(output: string): number {
  return isJsonFinding(output).score;
}
