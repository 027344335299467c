/**
 * Modules a function loads with `import()` for some requests only, each holding packages alone (no
 * module of the service's but plain constants, so no class or state exists twice): kept out of
 * every function bundle, built once before bundling into `.build/lazy/` (git-ignored), and shipped
 * beside each bundle that imports one (app-function.ts `lazyModuleCommands`). A function's
 * `package.json` maps the specifier to the shipped file; everywhere else (the local server, tests,
 * CLIs) the project's own package.json maps it to the source. What a bundle does not hold, its cold
 * start neither parses nor initialises: the users' JSON Schema compiler was a quarter of
 * metrics/create's bundle.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import {
  esbuildOptions,
  LAZY_BUILD_DIR,
  LAZY_MODULES,
  lazyModuleName,
  PROJECT_ROOT,
} from './constructs/app-function.js';

/** The source of each lazy module, from the project's package.json `imports` (one place for both). */
function lazyModuleSources(): Record<string, string> {
  const { imports } = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    imports: Record<string, string>;
  };
  return Object.fromEntries(
    LAZY_MODULES.map((specifier) => {
      const source = imports[specifier];
      if (!source) throw new Error(`package.json imports has no ${specifier}`);
      return [specifier, resolve(PROJECT_ROOT, source)];
    }),
  );
}

/** Builds every lazy module alone, with the functions' esbuild settings, into LAZY_BUILD_DIR. */
export async function writeLazyModules(): Promise<void> {
  const sources = lazyModuleSources();
  await build({
    ...esbuildOptions(resolve(PROJECT_ROOT, LAZY_BUILD_DIR)),
    entryPoints: LAZY_MODULES.map((s) => ({ in: sources[s]!, out: lazyModuleName(s) })),
  });
}
