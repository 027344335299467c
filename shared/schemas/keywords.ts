import type { ErrorObject } from 'ajv';
import { freeFormProblem } from './storable.js';

/**
 * The service's own JSON Schema keywords, as plain functions: ajv calls them from validators
 * compiled at load (ajv.ts) and from the validators precompiled at build time
 * (.build/validators/, generated before bundling by infra/validators.ts), so this module imports no schema library.
 */

/** The keywords below, by name: not JSON Schema, so the OpenAPI document shows them as `x-` extensions. */
export const SERVICE_KEYWORDS = ['maxBytes', 'freeForm'] as const;

/**
 * The bytes a value takes when stored: UTF-8 of a string, of the JSON of anything else. The
 * `maxBytes` keyword bounds it, so a record's worst case fits a DynamoDB item.
 */
export function byteSize(value: unknown): number {
  return Buffer.byteLength(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 'utf8');
}

/** `maxBytes: N`: the value's `byteSize` is at most N. */
export function validateMaxBytes(limit: number, data: unknown): boolean {
  const ok = byteSize(data) <= limit;
  validateMaxBytes.errors = ok
    ? undefined
    : [{ keyword: 'maxBytes', params: { limit, string: typeof data === 'string' } }];
  return ok;
}
validateMaxBytes.errors = undefined as Partial<ErrorObject>[] | undefined;

/**
 * `freeForm: {maxDepth?, maxBytes?}` on an object schema: the value is a free key/value map that
 * must still be storable (see `freeFormProblem`). Built by `FreeForm()` in common.ts.
 */
export function validateFreeForm(options: { maxDepth?: number; maxBytes?: number }, data: unknown): boolean {
  const problem = freeFormProblem(data, options);
  validateFreeForm.errors = problem ? [{ keyword: 'freeForm', message: problem.rule, params: problem }] : undefined;
  return !problem;
}
validateFreeForm.errors = undefined as Partial<ErrorObject>[] | undefined;
