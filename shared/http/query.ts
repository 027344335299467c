import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { TObject } from '@sinclair/typebox';
import { ValidationError } from '../errors.js';
import { numberProblem } from '../schemas/storable.js';

/** A plain decimal number: what a numeric query parameter may be (no blanks, hex, Infinity or NaN). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

type PropertySchema = { type?: unknown; items?: { type?: unknown } };

function numericType(schema: { type?: unknown } | undefined): 'integer' | 'number' | undefined {
  const types =
    typeof schema?.type === 'string' ? [schema.type] : Array.isArray(schema?.type) ? (schema.type as unknown[]) : [];
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  return undefined;
}

/**
 * A numeric query value must be a plain decimal that gives a finite, storable number: ajv's
 * coercion would turn "Infinity", "1e309", " " and "0x10" into numbers, and it checks ranges only
 * on finite ones.
 */
function checkNumeric(key: string, value: string, type: 'integer' | 'number'): void {
  if (!DECIMAL.test(value))
    throw new ValidationError(`${key} must be ${type === 'integer' ? 'an integer' : 'a number'}`);
  const problem = numberProblem(Number(value));
  if (problem) throw new ValidationError(`${key} ${problem}`);
}

/** Sets an own property even for a key such as `__proto__`, so the validator sees (and refuses) it. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Collects query parameters for validation: array-typed parameters accept repeated keys and
 * comma-separated values; a scalar given twice is a 400. Types are coerced by the validator;
 * numeric values are checked here first.
 */
export function normaliseQuery(
  event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>,
  schema: TObject,
): Record<string, unknown> {
  const multi = new Map<string, string[]>();
  for (const [k, v] of Object.entries(event.multiValueQueryStringParameters ?? {})) if (v) multi.set(k, [...v]);
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {}))
    if (v !== undefined && v !== null && !multi.has(k)) multi.set(k, [v]);
  const props = new Map(Object.entries((schema.properties ?? {}) as Record<string, PropertySchema>));
  const out: Record<string, unknown> = {};
  for (const [key, values] of multi) {
    const prop = props.get(key);
    if (prop?.type === 'array') {
      const items = values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v.length > 0);
      const itemType = numericType(prop.items);
      if (itemType) for (const item of items) checkNumeric(key, item, itemType);
      define(out, key, items);
    } else {
      if (values.length > 1) throw new ValidationError(`query parameter '${key}' must be given once`);
      const value = values[0]!;
      const type = numericType(prop);
      if (type) checkNumeric(key, value, type);
      define(out, key, value);
    }
  }
  return out;
}
