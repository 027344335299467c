/**
 * Precompiles every route's validators before bundling (ajv standalone code), so a function bundle
 * carries no schema compiler (no ajv, ajv-formats or compile at load). Run before bundling with the
 * other generated modules (infra/build-modules.ts), by the validators' tests and by `npm run validators`.
 *
 * For each route of shared/routes.ts it imports the handler, reads the schemas it declares
 * (`handler.contract`, the objects the local server compiles at load) and writes
 * `.build/validators/<handler>.ts` (git-ignored: generated, never committed): the same ajv options,
 * storage bounds and keywords as shared/schemas/ajv.ts, as plain code that registers itself. It
 * imports only shared/ modules; bundling (infra/constructs/app-function.ts) injects it ahead of the
 * function's own entry and resolves `#route-validators` to the registry
 * (shared/http/precompiled-validators.ts). test/integration/validators.test.ts checks that they
 * answer every request as the validators compiled at load.
 */
import { placeholderEnvironment } from '../shared/config/env.js';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { _, Ajv, type AnySchema } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import { routeOf, routes } from '../shared/routes.js';
import { NoParams, type Contract } from '../shared/http/handler.js';
import type { Where } from '../shared/http/validators.js';
import { makeAjv, withStorageBounds } from '../shared/schemas/ajv.js';
import { validateFreeForm, validateMaxBytes } from '../shared/schemas/keywords.js';
import * as runtime from '../shared/schemas/ajv-runtime.js';
import { ANSWER_AJV_OPTIONS } from '../shared/llm/answer-compiler.js';
import { FIXED_ANSWER_SCHEMAS, GENERATOR_ANSWER_SHAPES } from '../shared/llm/answer-schemas.js';
import type { TSchema } from '@sinclair/typebox';
import { MCP_TOOL_INPUTS } from '../shared/mcp/inputs.js';
import {
  ANSWER_VALIDATORS_FILE,
  GENERATOR_ANSWER_VALIDATORS_FILE,
  MCP_TOOL_VALIDATORS_FILE,
  routeValidatorsFile,
  VALIDATORS_BUILD_DIR,
} from './constructs/app-function.js';

const standaloneCode = standalone.default;
const ROOT = resolve(import.meta.dirname, '..');
export const PRECOMPILED_DIR = resolve(ROOT, VALIDATORS_BUILD_DIR);

/** The fixed LLM answer schemas' validators: `#answer-validators` in every function bundle (BUNDLING's alias). */
export const ANSWER_VALIDATORS_PATH = resolve(ROOT, ANSWER_VALIDATORS_FILE);
/** The generator's answer shapes' validators: `#generator-answer-validators`. */
export const GENERATOR_ANSWER_VALIDATORS_PATH = resolve(ROOT, GENERATOR_ANSWER_VALIDATORS_FILE);

/** Each module of precompiled answer validators, with the record of answer-schemas.ts it is written from. */
export const ANSWER_VALIDATOR_MODULES = [
  { path: ANSWER_VALIDATORS_PATH, record: 'FIXED_ANSWER_SCHEMAS', schemas: FIXED_ANSWER_SCHEMAS },
  { path: GENERATOR_ANSWER_VALIDATORS_PATH, record: 'GENERATOR_ANSWER_SHAPES', schemas: GENERATOR_ANSWER_SHAPES },
] as const;

/** The MCP tools' precompiled argument checks: `#mcp-tool-validators` in the MCP function's bundle. */
export const MCP_TOOL_VALIDATORS_PATH = resolve(ROOT, MCP_TOOL_VALIDATORS_FILE);

/** Where a handler's precompiled validators live (injected into its function's bundle). */
export const precompiledPath = (handler: string): string => resolve(ROOT, routeValidatorsFile(handler));

/** ajv for standalone code: the service's options, keywords referenced by their module's exports. */
function standaloneAjv(coerce: boolean): Ajv {
  const ajv = withRuntimeHelpers(makeAjv(coerce, { source: true, lines: false, formats: _`__runtime.fullFormats` }));
  // The keyword functions become imports of keywords.ts in the generated code (ajv reuses a
  // scope value registered for the same function).
  ajv.scope.value('keyword', { ref: validateMaxBytes, code: _`__keywords.validateMaxBytes` });
  ajv.scope.value('keyword', { ref: validateFreeForm, code: _`__keywords.validateFreeForm` });
  return ajv;
}

/** ajv's runtime helpers become imports of ajv-runtime.ts in the generated code (the same functions). */
function withRuntimeHelpers(ajv: Ajv): Ajv {
  ajv.scope.value('func', { ref: runtime.ucs2length, code: _`__runtime.ucs2length` });
  ajv.scope.value('func', { ref: runtime.equal, code: _`__runtime.equal` });
  return ajv;
}

/** `target` (from the project root) as an import specifier of the generated module `file`. */
function importPath(file: string, target: string): string {
  const r = relative(dirname(file), resolve(ROOT, target)).replaceAll('\\', '/');
  return r.startsWith('.') ? r : `./${r}`;
}

/** One schema as an expression: the standalone CommonJS code inside a function. */
function validatorExpression(ajv: Ajv, schema: TSchema): string {
  return standaloneExpression(ajv, withStorageBounds(schema) as AnySchema);
}

function standaloneExpression(ajv: Ajv, schema: AnySchema): string {
  const code = standaloneCode(ajv, ajv.compile(schema));
  const required = /require\("([^"]+)"\)/.exec(code);
  if (required)
    throw new Error(
      `the generated code requires ${required[1]}: add it to shared/schemas/ajv-runtime.ts and register it in infra/validators.ts`,
    );
  // `self` is the ajv instance when ajv compiles at load; the keywords' functions do not use it.
  return `(() => {\nconst module = { exports: {} };\nconst self = undefined;\n${code}\nreturn module.exports;\n})()`;
}

/**
 * A module of precompiled answer validators (`#answer-validators`, `#generator-answer-validators`
 * in a function bundle): the schemas of one record of shared/llm/answer-schemas.ts compiled with
 * the options shared/llm/answer-compiler.ts compiles them with, keyed by the schema objects.
 */
export function answerValidatorsModule({ path, record, schemas }: (typeof ANSWER_VALIDATOR_MODULES)[number]): string {
  const ajv = withRuntimeHelpers(new Ajv({ ...ANSWER_AJV_OPTIONS, code: { source: true, lines: false } }));
  const entries = Object.entries(schemas).map(
    ([name, schema]) => `  [${record}.${name}, ${standaloneExpression(ajv, schema as AnySchema)}],`,
  );
  const rel = (target: string) => importPath(path, target);
  const body = entries.join('\n');
  return [
    '// @ts-nocheck',
    `// Generated by infra/validators.ts from ${record} of shared/llm/answer-schemas.ts before bundling: do not edit.`,
    `import { ${record} } from '${rel('shared/llm/answer-schemas.js')}';`,
    ...(body.includes('__runtime') ? [`import * as __runtime from '${rel('shared/schemas/ajv-runtime.js')}';`] : []),
    '',
    'export const precompiledAnswerValidators = new Map([',
    body,
    ']);',
    '',
  ].join('\n');
}

/** The MCP tools' argument checks (`#mcp-tool-validators` in the MCP function's bundle): each tool's schema as a route body's. */
function mcpToolValidatorsModule(): string {
  const ajv = standaloneAjv(false);
  const rel = (target: string) => importPath(MCP_TOOL_VALIDATORS_PATH, target);
  return [
    '// @ts-nocheck',
    '// Generated by infra/validators.ts from MCP_TOOL_INPUTS of shared/mcp/inputs.ts before bundling: do not edit.',
    `import { toValidator } from '${rel('shared/http/validators.js')}';`,
    `import * as __keywords from '${rel('shared/schemas/keywords.js')}';`,
    `import * as __runtime from '${rel('shared/schemas/ajv-runtime.js')}';`,
    '',
    'const validators = {',
    ...Object.entries(MCP_TOOL_INPUTS).map(
      ([name, schema]) => `  ${name}: toValidator(${validatorExpression(ajv, schema)}, 'body'),`,
    ),
    '};',
    '',
    'export function toolInputValidator(name) {',
    '  return validators[name];',
    '}',
    '',
  ].join('\n');
}

/** The generated module of one route. */
export function precompiledModule(
  handler: string,
  schemas: { params: TSchema; query: TSchema; body?: TSchema },
): string {
  const bodyAjv = standaloneAjv(false);
  const stringAjv = standaloneAjv(true);
  const entries: [Where, string][] = [
    ['path', validatorExpression(stringAjv, schemas.params)],
    ['query', validatorExpression(stringAjv, schemas.query)],
  ];
  if (schemas.body) entries.push(['body', validatorExpression(bodyAjv, schemas.body)]);
  const rel = (target: string) => importPath(precompiledPath(handler), target);
  return [
    '// @ts-nocheck',
    `// Generated by infra/validators.ts from the schemas of the ${handler} route before bundling: do not edit.`,
    `import { registerValidators, toValidator } from '${rel('shared/http/validators.js')}';`,
    `import * as __keywords from '${rel('shared/schemas/keywords.js')}';`,
    `import * as __runtime from '${rel('shared/schemas/ajv-runtime.js')}';`,
    '',
    ...entries.map(([where, expr]) => `const ${where} = toValidator(${expr}, '${where}');`),
    '',
    `registerValidators('${handler}', { access: '${routeOf(handler).access}', params: path, query, body: ${schemas.body ? 'body' : 'undefined'} });`,
    '',
  ].join('\n');
}

/** Every route's generated module, by handler. */
export async function buildValidators(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const route of routes) {
    const mod = (await import(pathToFileURL(resolve(ROOT, 'functions', `${route.handler}.ts`)).href)) as {
      handler: { contract?: Contract };
    };
    const contract = mod.handler.contract;
    if (!contract) throw new Error(`functions/${route.handler}.ts does not use httpHandler`);
    out.set(
      route.handler,
      precompiledModule(route.handler, {
        params: contract.params ?? NoParams,
        query: contract.query,
        body: contract.body,
      }),
    );
  }
  return out;
}

/**
 * Writes every route's module under PRECOMPILED_DIR, and the answer validators' modules (a file
 * whose content is already right is left alone, and each is written whole, then renamed, so a
 * concurrent reader never sees half a module). Returns how many route modules there are.
 */
export async function writeValidators(): Promise<number> {
  placeholderEnvironment('validators');
  const modules = await buildValidators();
  for (const [handler, code] of modules) writeIfChanged(precompiledPath(handler), code);
  for (const module of ANSWER_VALIDATOR_MODULES) writeIfChanged(module.path, answerValidatorsModule(module));
  writeMcpToolValidators();
  return modules.size;
}

/** Writes the MCP tools' precompiled argument checks (`#mcp-tool-validators`), unless already right. */
export function writeMcpToolValidators(): void {
  writeIfChanged(MCP_TOOL_VALIDATORS_PATH, mcpToolValidatorsModule());
}

/** A file whose content is already right is left alone; each is written whole, then renamed. */
export function writeIfChanged(path: string, code: string): void {
  if (existsSync(path) && readFileSync(path, 'utf8') === code) return;
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, code);
  renameSync(temp, path);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const count = await writeValidators();
  console.log(
    `wrote ${count} route validator modules, the LLM answer validators and the MCP tools' to ${relative(ROOT, PRECOMPILED_DIR)}/`,
  );
  process.exit(0);
}
