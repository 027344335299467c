/**
 * Pre-builds the MCP SDK's entries the MCP function imports (MCP_SDK_ENTRIES, infra/constructs/
 * app-function.ts: the protocol server, the web-standard transport, the two request schemas the tools
 * answer) with rollup into MCP_SDK_BUILD_DIR before the functions are bundled; BUNDLING aliases the
 * entries there. The SDK's own code as it is, less three things the server never runs, which a plain
 * esbuild bundle keeps (and runs at load):
 *
 * - Its default JSON Schema checker: `server/index.js` imports `AjvJsonSchemaValidator` by a relative
 *   path (`../validation/ajv-provider.js`), which no alias reaches, and with it ajv and ajv-formats.
 *   The server is given its own checker (shared/mcp/server.ts), so the default is never made; a
 *   stand-in that throws if it were takes its place.
 * - Its compatibility code for zod 3 schemas: zod 3 (`z3rt.object` for a zod 3 shape) and
 *   zod-to-json-schema (a zod 3 schema's JSON Schema). The server is given only the protocol's own
 *   schemas, which are zod 4; stand-ins that throw take their place.
 * - The protocol's zod schemas that no server code refers to: `types.js` builds every one of its
 *   schemas when it loads (client requests, sampling, elicitation, resources, prompts...). Each of
 *   its top-level constants is marked pure, so rollup leaves out those nothing uses; those used are
 *   built where and when they were.
 *
 * The packages the SDK imports (zod 4, content-type) stay imports, which esbuild resolves as before
 * in the function bundle.
 * Under MCP_SDK_BUILD_DIR (git-ignored: generated, never committed): `<entry>.mjs` per entry and
 * `shared-<hash>.mjs`, the code they share. test/integration/mcp-sdk.test.ts checks that the
 * bundled server answers as the unbundled one does.
 */
import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { type Plugin, type ProgramNode, rollup } from 'rollup';
import { MCP_SDK_BUILD_DIR, MCP_SDK_ENTRIES, PROJECT_ROOT } from './constructs/app-function.js';
import { generatedChunks, writeStampedBuild } from './stamped-build.js';

const builtin = (id: string) => id.startsWith('node:') || builtinModules.includes(id);

const refused = (what: string) =>
  `throw new Error(${JSON.stringify(`${what}: left out of the function bundles (infra/mcp-sdk.ts)`)});`;

/** What stands in for each module left out, by the specifier the SDK imports it with; each exports what the SDK imports. */
const STAND_INS: Record<string, { matches: (source: string) => boolean; code: string }> = {
  'ajv-provider': {
    matches: (source) => source.endsWith('/validation/ajv-provider.js'),
    code: `export class AjvJsonSchemaValidator { constructor() { ${refused('the SDK’s default JSON Schema checker (ajv); give the server a jsonSchemaValidator')} } }`,
  },
  'zod-3': {
    matches: (source) => source === 'zod/v3',
    code: `export function object() { ${refused('zod 3 schemas; the protocol’s schemas are zod 4')} }`,
  },
  'zod-to-json-schema': {
    matches: (source) => source === 'zod-to-json-schema',
    code: `export function zodToJsonSchema() { ${refused('zod 3 schemas; the protocol’s schemas are zod 4')} }`,
  },
};

const STAND_IN = '\0mcp-sdk-stand-in:';
const isLeftOut = (source: string) => Object.values(STAND_INS).some((s) => s.matches(source));

const standIns: Plugin = {
  name: 'mcp-sdk-stand-ins',
  resolveId(source) {
    const name = Object.keys(STAND_INS).find((n) => STAND_INS[n]!.matches(source));
    return name ? STAND_IN + name : null;
  },
  load(id) {
    return id.startsWith(STAND_IN) ? STAND_INS[id.slice(STAND_IN.length)]!.code : null;
  },
};

/** The SDK's protocol types, whose top-level constants are the schemas. */
const isProtocolTypes = (id: string) => /@modelcontextprotocol\/sdk\/dist\/esm\/types\.js$/.test(id);

/** A node of a chain of calls and member reads, as far as chainRoot reads it. */
type ChainNode = { type: string; callee?: ChainNode; object?: ChainNode; name?: string };

/** What a chain of calls and member reads starts from: `z` in `z.object({…}).strict()`. */
function chainRoot(node: ChainNode): ChainNode {
  let root = node;
  while ((root.type === 'CallExpression' && root.callee) || (root.type === 'MemberExpression' && root.object))
    root = root.callee ?? root.object!;
  return root;
}

/**
 * Each top-level `const` whose value is built by a call (a zod schema) becomes a pure immediately
 * invoked function: the same value, built at the same point, and left out when nothing refers to it.
 * Every such value must be built by zod (`z.…`) or from another schema (`…Schema.extend(…)`): any
 * other call might do something at load, and fails the build.
 */
export function pureConstants(code: string, program: ProgramNode): string {
  const edits: { start: number; end: number }[] = [];
  for (const statement of program.body) {
    const declaration =
      statement.type === 'ExportNamedDeclaration' && statement.declaration ? statement.declaration : statement;
    if (declaration.type !== 'VariableDeclaration' || declaration.kind !== 'const') continue;
    for (const { id, init } of declaration.declarations) {
      if (!init || (init.type !== 'CallExpression' && init.type !== 'MemberExpression')) continue;
      const root = chainRoot(init as ChainNode);
      if (root.type !== 'Identifier' || !(root.name === 'z' || root.name?.endsWith('Schema')))
        throw new Error(
          `mcp-sdk: ${id.type === 'Identifier' ? id.name : 'a constant'} of types.js is not built by zod`,
        );
      // rollup's nodes carry their offsets, which the ESTree types do not name.
      edits.push(init as unknown as { start: number; end: number });
    }
  }
  let out = code;
  for (const { start, end } of edits.reverse())
    out = `${out.slice(0, start)}/*#__PURE__*/ (() => ${out.slice(start, end)})()${out.slice(end)}`;
  return out;
}

const pureSchemas: Plugin = {
  name: 'mcp-sdk-pure-schemas',
  transform(code, id) {
    return isProtocolTypes(id) ? { code: pureConstants(code, this.parse(code)), map: null } : null;
  },
};

const ENTRY = '\0mcp-sdk-entry:';

/** Each entry as a module of its own: all the SDK module exports, or only the `names` it lists. */
const entries: Plugin = {
  name: 'mcp-sdk-entries',
  resolveId(source) {
    return source.startsWith(ENTRY) ? source : null;
  },
  load(id) {
    if (!id.startsWith(ENTRY)) return null;
    const entry: { specifier: string; names?: readonly string[] } =
      MCP_SDK_ENTRIES[id.slice(ENTRY.length) as keyof typeof MCP_SDK_ENTRIES];
    return entry.names
      ? `export { ${entry.names.join(', ')} } from '${entry.specifier}';`
      : `export * from '${entry.specifier}';`;
  },
};

/** The entries' modules and the chunks they share, by file name. */
async function bundleSdk(): Promise<Map<string, string>> {
  const bundle = await rollup({
    input: Object.fromEntries(Object.keys(MCP_SDK_ENTRIES).map((entry) => [entry, ENTRY + entry])),
    // The SDK's own files are built here; the packages it imports stay imports (but those left out).
    external: (id) =>
      builtin(id) || (/^[@a-z]/i.test(id) && !id.startsWith('@modelcontextprotocol/sdk/') && !isLeftOut(id)),
    plugins: [entries, standIns, pureSchemas, nodeResolve({ rootDir: PROJECT_ROOT, preferBuiltins: true })],
    onwarn(warning, warn) {
      // A module left unresolved, or a name a stand-in lacks, would fail at load: either fails the build.
      if (warning.code === 'UNRESOLVED_IMPORT' || warning.code === 'MISSING_EXPORT')
        throw new Error(`mcp-sdk: ${warning.message}`);
      // The SDK's source maps name files the package does not ship.
      if (warning.code === 'SOURCEMAP_ERROR') return;
      warn(warning);
    },
  });
  const { output } = await bundle.generate({
    format: 'es',
    entryFileNames: '[name].mjs',
    chunkFileNames: 'shared-[hash].mjs',
    // An entry imports what it uses, not also its shared chunk's imports (bare `import 'zod/v4'`).
    hoistTransitiveImports: false,
  });
  await bundle.close();
  return generatedChunks(output, 'infra/mcp-sdk.ts');
}

/** Writes the pre-built SDK entries, unless the last build was made from the same inputs (the lockfile, this module, the entries). */
export async function writeMcpSdk(): Promise<void> {
  await writeStampedBuild(
    resolve(PROJECT_ROOT, MCP_SDK_BUILD_DIR),
    { files: ['package-lock.json', 'infra/mcp-sdk.ts'], extra: MCP_SDK_ENTRIES },
    bundleSdk,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await writeMcpSdk();
  console.log(`wrote the MCP SDK's server entries to ${MCP_SDK_BUILD_DIR}/`);
}
