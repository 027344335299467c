import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { ValidationError } from '../errors.js';
import { describeErrors } from './describe.js';

export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The one compiler of JSON Schemas users write (a check's `schema`, an endpoint connection's
 * `inputSchema`), made by ./user-schema-compiler.ts (`#user-schema-compiler`: a function bundle
 * ships it beside itself rather than in it, infra/lazy-modules.ts). It keeps no user schema: see
 * compileUserSchema. Whatever compiles users' schemas (a metric or connection write, the checks'
 * scorer) awaits loadUserSchemaCompiler() first, for the requests that carry a schema only, so the
 * compiler is not part of any cold start.
 */
let factory: (() => Ajv2020) | undefined;
let made: Ajv2020 | undefined;

export async function loadUserSchemaCompiler(): Promise<void> {
  factory ??= (await import('#user-schema-compiler')).newUserSchemaCompiler;
}

function userCompiler(): Ajv2020 {
  if (!made) {
    if (!factory) throw new Error('the user schema compiler is not loaded: await loadUserSchemaCompiler() first');
    made = factory();
  }
  return made;
}

/**
 * Checks that `schema` is a valid JSON Schema of draft 2020-12 and compiles it; a ValidationError
 * names `field` (and the place inside the schema) otherwise. The compiler forgets every schema
 * right after compiling (ajv would otherwise keep each one in its cache for the life of the
 * process, and refuse a second schema with the same `$id`): the caller owns the compiled function.
 */
export function compileUserSchema(schema: unknown, field: string): ValidateFunction {
  const compiler = userCompiler();
  if (typeof schema === 'object' && schema !== null && '$schema' in schema) {
    const declared = (schema as { $schema: unknown }).$schema;
    if (declared !== DRAFT_2020_12 && declared !== `${DRAFT_2020_12}#`) {
      throw new ValidationError(`${field}.$schema must be "${DRAFT_2020_12}" (draft 2020-12) or absent`);
    }
  }
  try {
    if (!compiler.validateSchema(schema as object)) {
      const prefix = `/${field.split('.').join('/')}`;
      const errors = (compiler.errors ?? []).map((e) => ({ ...e, instancePath: `${prefix}${e.instancePath}` }));
      throw new ValidationError(
        `${field} is not a valid JSON Schema (draft 2020-12): ${describeErrors(errors, 'body')}`,
      );
    }
    return compiler.compile(schema as object);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw new ValidationError(
      `${field} is not a valid JSON Schema (draft 2020-12): ${(error as Error).message.slice(0, 300)}`,
    );
  } finally {
    compiler.removeSchema();
  }
}
