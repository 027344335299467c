/**
 * Bundles each group of FLAT_PACKAGES (infra/constructs/app-function.ts) into one scope-hoisted ES
 * module before the functions are bundled, with rollup and its CommonJS plugin: the packages' code
 * as it is, without a module wrapper per file. esbuild, which bundles the functions, keeps every
 * CommonJS file in a wrapper of its own, which the bundle compiles and runs at load; Student's t
 * alone is 419 files. Run before bundling with the other generated modules
 * (infra/build-modules.ts).
 *
 * Each package of a group is an entry of the group's rollup build, so a package that needs only part
 * of another's code (Nunjucks' compiler, without its environment) loads only that part: rollup puts
 * the code entries share in chunks of their own, and each module is in the build once.
 *
 * Under FLAT_BUILD_DIR (git-ignored: generated, never committed):
 * - `<group>.e<i>.mjs`: the i-th package's entry, its `module.exports` as the export `p`;
 * - `<group>.shared-<hash>.mjs`: code the entries share;
 * - `<group>.<i>.mjs`: what BUNDLING's alias resolves the i-th package to: the package's exports
 *   as esbuild gives a CommonJS module's to an importer (the default is `exports.default` when the
 *   module says `__esModule`, else `module.exports`; each enumerable property a named export).
 *
 * test/integration/flat-packages.test.ts checks that the service's code bundled with these modules
 * answers as it does with the packages themselves.
 */
import { builtinModules, createRequire } from 'node:module';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import commonjsPlugin from '@rollup/plugin-commonjs';
import jsonPlugin from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { rollup } from 'rollup';
import { FLAT_BUILD_DIR, FLAT_PACKAGES, flatPackageFile, PROJECT_ROOT } from './constructs/app-function.js';
import { generatedChunks, writeStampedBuild } from './stamped-build.js';

// The plugins' types describe their CommonJS build; the ES module build Node loads exports the function.
const commonjs = commonjsPlugin as unknown as typeof commonjsPlugin.default;
const json = jsonPlugin as unknown as typeof jsonPlugin.default;

const builtin = (id: string) => id.startsWith('node:') || builtinModules.includes(id);

/** The entry of a package: its `module.exports` re-exported as `p`. */
const packageEntry = (name: string): string => `export { default as p } from ${JSON.stringify(name)};`;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The module a package resolves to: the i-th package's exports, named as its module.exports names them. */
function packageModule(group: string, name: string, i: number): string {
  const exported = createRequire(resolve(PROJECT_ROOT, 'package.json'))(name) as Record<string, unknown>;
  const names = Object.keys(exported).filter((k) => IDENTIFIER.test(k) && k !== 'default' && k !== '__esModule');
  return [
    `import { p as m } from './${group}.e${i}.mjs';`,
    'export default m && m.__esModule ? m.default : m;',
    ...names.map((k) => `export const ${k} = m.${k};`),
    '',
  ].join('\n');
}

/** The group's files: each package's entry and the chunks they share, by name. */
async function bundleGroup(group: string, packages: readonly string[]): Promise<Map<string, string>> {
  const entries = new Map(packages.map((name, i) => [`\0flat-entry:${i}`, name]));
  const bundle = await rollup({
    input: Object.fromEntries(packages.map((_, i) => [`${group}.e${i}`, `\0flat-entry:${i}`])),
    external: builtin,
    plugins: [
      {
        name: 'flat-entry',
        resolveId: (id) => (entries.has(id) ? id : null),
        load: (id) => (entries.has(id) ? packageEntry(entries.get(id)!) : null),
      },
      json(),
      nodeResolve({ rootDir: PROJECT_ROOT, preferBuiltins: true }),
      // A file required at the top level of the files that require it is hoisted; one required
      // conditionally or in a cycle keeps a wrapper, run when it is first required, as before.
      // Node's built-ins and the optional file watcher stay `require` calls where they are (asap
      // loads `domain` only when a domain is active; nunjucks loads chokidar only to watch files):
      // the functions' banner defines `require`.
      commonjs({
        strictRequires: 'auto',
        defaultIsModuleExports: true,
        ignore: (id) => builtin(id) || id === 'chokidar' || id === 'fsevents',
      }),
    ],
    onwarn(warning) {
      // An import left unresolved or a cycle would change what the packages do: either fails the build.
      if (warning.code === 'UNRESOLVED_IMPORT' || warning.code === 'CIRCULAR_DEPENDENCY')
        throw new Error(`${group}: ${warning.message}`);
    },
  });
  const { output } = await bundle.generate({
    format: 'es',
    entryFileNames: '[name].mjs',
    chunkFileNames: `${group}.shared-[hash].mjs`,
  });
  await bundle.close();
  return generatedChunks(output, 'infra/flat-packages.ts');
}

/**
 * Writes every group's modules and its packages' modules, unless the last build was made from the
 * same inputs (the lockfile, this module and the groups; rollup takes seconds over Student's t).
 */
export async function writeFlatPackages(): Promise<void> {
  await writeStampedBuild(
    resolve(PROJECT_ROOT, FLAT_BUILD_DIR),
    { files: ['package-lock.json', 'infra/flat-packages.ts'], extra: FLAT_PACKAGES },
    async () => {
      const files = new Map<string, string>();
      for (const [group, packages] of Object.entries(FLAT_PACKAGES)) {
        for (const [file, code] of await bundleGroup(group, packages)) files.set(file, code);
        for (const [i, name] of packages.entries())
          files.set(basename(flatPackageFile(group, i)), packageModule(group, name, i));
      }
      return files;
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await writeFlatPackages();
  console.log(`wrote the flat packages to ${FLAT_BUILD_DIR}/`);
}
