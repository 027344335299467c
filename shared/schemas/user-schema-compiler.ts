import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule.default;

/**
 * A compiler of the JSON Schemas users write: draft 2020-12, not strict (the draft allows unknown
 * keywords and formats, as annotations); known formats checked in ajv-formats' "fast" mode (no
 * regular expression that can backtrack badly). The one module that imports the compiler, and it
 * imports nothing of the service's: a route loads it only for a request that carries a schema
 * (./user-schemas.ts `loadUserSchemaCompiler`).
 */
export function newUserSchemaCompiler(): Ajv2020 {
  const compiler = new Ajv2020({ strict: false, allErrors: false, logger: false });
  addFormats(compiler, { mode: 'fast' });
  return compiler;
}
