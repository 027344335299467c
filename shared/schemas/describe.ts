import type { ErrorObject } from 'ajv';
import { NUMBER_RULE, type Problem } from './storable.js';

/**
 * ajv errors as sentences that name the field and the rule. No schema library here: the
 * validators compiled at load (ajv.ts) and the precompiled ones (shared/http/validators.ts) share it.
 */

function fieldName(path: string, where: string): string {
  const dotted = path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
  return dotted || (where === 'body' ? 'body' : where === 'query' ? 'query' : 'path');
}

function join(parent: string, child: string): string {
  return parent === 'body' || parent === 'query' || parent === 'path' ? child : `${parent}.${child}`;
}

/**
 * The sentence for a failed validation. A union (`anyOf`) reports one error per branch: the most
 * specific one wins (a branch that failed on a rule, not on its type); when every branch failed
 * on its type, the types are joined ("context must be a string or an object or null").
 */
export function describeErrors(errors: ErrorObject[] | null | undefined, where: string): string {
  const list = errors ?? [];
  const specific = list.find((e) => e.keyword !== 'type' && e.keyword !== 'anyOf');
  if (specific) return describeError(specific, where);
  const first = list[0];
  if (!first) return describeError(undefined, where);
  const sameField = list.filter((e) => e.keyword === 'type' && e.instancePath === first.instancePath);
  if (sameField.length < 2) return describeError(first, where);
  const types = [...new Set(sameField.flatMap((e) => String((e.params as { type: string }).type).split(',')))];
  return describeError({ ...first, params: { type: types.join(',') } }, where);
}

/** Turns an ajv error into a sentence that names the field and the rule. */
export function describeError(err: ErrorObject | undefined, where: string): string {
  if (!err) return `invalid ${where}`;
  const path = fieldName(err.instancePath, where);
  // A rule on the keys of an object (propertyNames): name the key.
  const field =
    err.propertyName === undefined
      ? path
      : `${path} key '${err.propertyName.length > 40 ? `${err.propertyName.slice(0, 40)}…` : err.propertyName}'`;
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties':
      return where === 'query'
        ? `unknown query parameter '${String(p.additionalProperty)}'`
        : `unknown field '${join(field, String(p.additionalProperty))}'`;
    case 'required':
      return `${join(field, String(p.missingProperty))} is required`;
    case 'type': {
      if (typeof err.data === 'number' && !Number.isFinite(err.data)) return `${field} ${NUMBER_RULE}`;
      const t = String(p.type)
        .split(',')
        .filter((x) => x !== 'null');
      const nullable = String(p.type).includes('null') ? ' or null' : '';
      return `${field} must be ${t.map(article).join(' or ')}${nullable}`;
    }
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}`;
    case 'minimum':
      return `${field} must be at least ${String(p.limit)}`;
    case 'maximum':
      return `${field} must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(p.limit)}`;
    case 'minLength':
      return Number(p.limit) === 1
        ? `${field} must not be empty`
        : `${field} must have at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `${field} must have at most ${String(p.limit)} characters`;
    case 'minItems':
      return `${field} must have at least ${String(p.limit)} item${Number(p.limit) === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${field} must have at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return `${field} must not contain duplicates`;
    case 'minProperties':
      return `${field} must have at least ${String(p.limit)} field${Number(p.limit) === 1 ? '' : 's'}`;
    case 'maxProperties':
      return `${field} must have at most ${String(p.limit)} fields`;
    case 'format':
      return `${field} must be a valid ${String(p.format)}`;
    case 'maxBytes':
      return `${field} must be at most ${String(p.limit)} bytes${p.string ? ' of UTF-8' : ' as JSON'}`;
    case 'pattern':
      return `${field} ${patternRule(err)}`;
    case 'freeForm': {
      const problem = p as unknown as Problem;
      return `${field}${problem.at} ${problem.rule}`;
    }
    default:
      return `${field} ${err.message ?? 'is invalid'}`;
  }
}

function patternRule(err: ErrorObject): string {
  const description = (err.parentSchema as { description?: string } | undefined)?.description;
  return description
    ? `must be ${description}`
    : `must match the pattern ${String((err.params as { pattern: string }).pattern)}`;
}

function article(type: string): string {
  switch (type) {
    case 'integer':
      return 'an integer';
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    default:
      return `a ${type}`;
  }
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), for field names. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/**
 * The known name nearest an unknown one, for "did you mean": the same ignoring case, or within 2
 * edits (1 for names of 4 characters or fewer); undefined when none is that near, or two are.
 */
export function nearestName(unknown: string, known: readonly string[]): string | undefined {
  const lower = unknown.toLowerCase();
  const sameCase = known.filter((k) => k.toLowerCase() === lower);
  if (sameCase.length === 1) return sameCase[0];
  const limit = unknown.length <= 4 ? 1 : 2;
  const scored = known.map((k) => [k, editDistance(lower, k.toLowerCase())] as const).filter(([, d]) => d <= limit);
  if (scored.length === 0) return undefined;
  const best = Math.min(...scored.map(([, d]) => d));
  const nearest = scored.filter(([, d]) => d === best);
  return nearest.length === 1 ? nearest[0]![0] : undefined;
}

type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode; anyOf?: SchemaNode[] };

/** The property names a schema allows at a dotted path (`labels[0]` steps into the array's items). */
function namesAt(schema: SchemaNode | undefined, path: string[]): string[] {
  let node = schema;
  for (const step of path) {
    const [name, ...indexes] = step.split(/\[\d+\]/);
    if (name) node = node?.properties?.[name] ?? node?.anyOf?.find((s) => s.properties?.[name])?.properties?.[name];
    for (let i = 0; i < indexes.length; i++) node = node?.items;
  }
  return Object.keys(node?.properties ?? node?.anyOf?.find((s) => s.properties)?.properties ?? {});
}

/**
 * An "unknown field" or "unknown query parameter" message with the nearest allowed name, when one
 * is near ("unknown field 'metricId'; did you mean 'metricIds'?"); other messages as they are.
 */
export function withSuggestion(message: string, schema: object | undefined): string {
  const m = /^unknown (field|query parameter) '([^']+)'$/.exec(message);
  if (!m) return message;
  const path = m[2]!.split('.');
  const last = path.pop()!;
  const near = nearestName(last, namesAt(schema as SchemaNode, path));
  return near ? `${message}; did you mean '${[...path, near].join('.')}'?` : message;
}

/**
 * A "<field> is required" message when the value holds a near miss of that field ("metricIds is
 * required; the body has 'metricId': did you mean 'metricIds'?"); other messages as they are.
 */
export function withNearMiss(message: string, schema: object | undefined, value: unknown): string {
  const m = /^(\S+) is required$/.exec(message);
  if (!m) return message;
  const path = m[1]!.split('.');
  const missing = path.pop()!;
  let node: unknown = value;
  for (const step of path) {
    const [name, ...indexes] = step.split(/\[(\d+)\]/).filter((x) => x !== '');
    node = name === undefined ? node : (node as Record<string, unknown> | undefined)?.[name];
    for (const i of indexes) node = (node as unknown[] | undefined)?.[Number(i)];
  }
  if (!node || typeof node !== 'object' || Array.isArray(node)) return message;
  const known = namesAt(schema as SchemaNode, path);
  const given = Object.keys(node).filter((k) => !known.includes(k) && nearestName(k, [missing]) === missing);
  return given.length === 1
    ? `${message}; the ${path.length ? 'object' : 'body'} has '${given[0]}': did you mean '${missing}'?`
    : message;
}
