import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema, Static } from '@sinclair/typebox';
import { toValidator, type Validator } from '../http/validators.js';
import { MAX_NUMBER } from './storable.js';
import { validateFreeForm, validateMaxBytes } from './keywords.js';

export { byteSize } from './keywords.js';
export { describeError, describeErrors } from './describe.js';
export type { Validator } from '../http/validators.js';

const addFormats = addFormatsModule.default;

/**
 * The service's ajv: bodies as sent (`coerce` false), query and path strings coerced. `code` is for
 * the build step that writes standalone validators (infra/validators.ts).
 */
export function makeAjv(coerce: boolean, code?: Options['code']): Ajv {
  const ajv = new Ajv({
    ...(code ? { code } : {}),
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
    validate: validateMaxBytes,
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

/**
 * Compiles a schema once (call at module load) and returns a function that validates a value
 * and throws a ValidationError whose message names the field and the rule.
 */
export function compile<S extends TSchema>(schema: S, where: 'body' | 'query' | 'path' = 'body'): Validator<Static<S>> {
  return toValidator<Static<S>>((where === 'body' ? bodyAjv : stringAjv).compile(withStorageBounds(schema)), where);
}
