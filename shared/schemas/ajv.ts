import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema, Static } from '@sinclair/typebox';
import { ValidationError } from '../http/errors.js';
import { freeFormProblem, MAX_NUMBER, NUMBER_RULE, type Problem } from './storable.js';

const addFormats = addFormatsModule.default;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    verbose: true,
    strict: true,
    strictRequired: false,
    useDefaults: true,
    coerceTypes: coerce,
    allowUnionTypes: true,
  });
  addFormats(ajv, ['date-time', 'uri', 'email', 'date']);
  ajv.addKeyword({
    keyword: 'maxBytes',
    schemaType: 'number',
    errors: true,
    validate: function maxBytes(limit: number, data: unknown) {
      const ok = byteSize(data) <= limit;
      if (!ok) (maxBytes as unknown as { errors: Partial<ErrorObject>[] }).errors = [{ keyword: 'maxBytes', params: { limit, string: typeof data === 'string' } }];
      return ok;
    },
  });
  ajv.addKeyword({
    keyword: 'freeForm',
    type: 'object',
    schemaType: 'object',
    metaSchema: {
      type: 'object',
      properties: { maxDepth: { type: 'integer', minimum: 1 }, maxBytes: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
    errors: true,
    validate: validateFreeForm,
  });
  return ajv;
}

/**
 * The bytes a value takes when stored: UTF-8 of a string, of the JSON of anything else. The
 * `maxBytes` keyword bounds it, so a record's worst case fits a DynamoDB item (DESIGN.md §9).
 */
export function byteSize(value: unknown): number {
  return Buffer.byteLength(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 'utf8');
}

/**
 * `freeForm: {maxDepth?, maxBytes?}` on an object schema: the value is a free key/value map that
 * must still be storable (see `freeFormProblem`). Built by `FreeForm()` in common.ts.
 */
function validateFreeForm(this: unknown, options: { maxDepth?: number; maxBytes?: number }, data: unknown): boolean {
  const problem = freeFormProblem(data, options);
  if (!problem) return true;
  validateFreeForm.errors = [{ keyword: 'freeForm', message: problem.rule, params: problem }];
  return false;
}
validateFreeForm.errors = undefined as Partial<ErrorObject>[] | undefined;

/**
 * Every number and integer schema gets finite bounds: `minimum`/`maximum` ±(2^53 − 1) where the
 * schema sets none. Query strings are coerced to numbers ("Infinity", "1e309"), and ajv only checks
 * ranges on finite numbers, so the bounds and the query normaliser's syntax check together keep
 * any number the service cannot store out. Returns a copy; the input is not changed.
 */
export function withStorageBounds<S extends TSchema>(schema: S): S {
  const copy = JSON.parse(JSON.stringify(schema)) as S;
  bound(copy);
  return copy;
}

function bound(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(bound);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (types.includes('number') || types.includes('integer')) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = -MAX_NUMBER;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = MAX_NUMBER;
  }
  for (const [key, child] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'freeForm') continue;
    bound(child);
  }
}

/** Bodies are validated as sent; query and path strings are coerced to the schema's types. */
const bodyAjv = makeAjv(false);
const stringAjv = makeAjv(true);

export type Validator<T> = (value: unknown) => T;

/**
 * Compiles a schema once (call at module load) and returns a function that validates a value
 * and throws a ValidationError whose message names the field and the rule.
 */
export function compile<S extends TSchema>(schema: S, where: 'body' | 'query' | 'path' = 'body'): Validator<Static<S>> {
  const fn: ValidateFunction = (where === 'body' ? bodyAjv : stringAjv).compile(withStorageBounds(schema));
  return (value: unknown) => {
    if (fn(value)) return value as Static<S>;
    throw new ValidationError(describeErrors(fn.errors, where));
  };
}

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
  const field = err.propertyName === undefined ? path : `${path} key '${err.propertyName.length > 40 ? `${err.propertyName.slice(0, 40)}…` : err.propertyName}'`;
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
      const t = String(p.type).split(',').filter((x) => x !== 'null');
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
      return Number(p.limit) === 1 ? `${field} must not be empty` : `${field} must have at least ${String(p.limit)} characters`;
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
  return description ? `must be ${description}` : `must match the pattern ${String((err.params as { pattern: string }).pattern)}`;
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
