import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema, Static } from '@sinclair/typebox';
import { ValidationError } from '../http/errors.js';

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
  return ajv;
}

/**
 * The bytes a value takes when stored: UTF-8 of a string, of the JSON of anything else. The
 * `maxBytes` keyword bounds it, so a record's worst case fits a DynamoDB item (DESIGN.md §9).
 */
export function byteSize(value: unknown): number {
  return Buffer.byteLength(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 'utf8');
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
  const fn: ValidateFunction = (where === 'body' ? bodyAjv : stringAjv).compile(schema);
  return (value: unknown) => {
    if (fn(value)) return value as Static<S>;
    throw new ValidationError(describeError(fn.errors?.[0], where));
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
