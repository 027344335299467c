/**
 * Every function the CDK stack defines, bundled the way CDK bundles it (infra/constructs/
 * app-function.ts `BUNDLING`, same entry), in one esbuild build; plus the bare-SDK reference: a
 * handler that only creates the DynamoDB document client and does one GetItem. Used by
 * `npm run bench:cold` and the bundle budget test (test/infra/bundle-size.test.ts).
 */
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { AppFunction, BUNDLING, bundleEntry, PROJECT_ROOT } from '../infra/constructs/app-function.js';
import { EvalPlatformStack } from '../infra/stack.js';

/** The bundle budget of a function (issue 16). */
export const MAX_BUNDLE_BYTES = 400 * 1024;
export const BARE = 'bare-sdk';

export interface Bundle {
  /** The function's handler module (`monitors/results`, `jobs/scanner`, `authorizer`) or `bare-sdk`. */
  name: string;
  file: string;
  bytes: number;
}

/** The handler of every function in the stack, read from the synthesized construct tree (no bundling). */
export function stackHandlers(): string[] {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EvalPlatformStack(app, 'Functions');
  const handlers = stack.node.findAll().filter((c): c is AppFunction => c instanceof AppFunction).map((f) => f.handler);
  return [...new Set(handlers)].sort();
}

/** Bundles every function and the bare-SDK handler into `outdir` (`<name>.mjs`), one esbuild build. */
export async function bundleAll(outdir: string, handlers = stackHandlers()): Promise<Bundle[]> {
  mkdirSync(outdir, { recursive: true });
  const entryPoints = [...handlers.map((h) => ({ in: bundleEntry(h), out: h })), { in: resolve(PROJECT_ROOT, 'bench', 'bare-sdk.ts'), out: BARE }];
  await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: BUNDLING.format,
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    alias: Object.fromEntries(Object.entries(BUNDLING.alias).map(([from, to]) => [from, resolve(PROJECT_ROOT, to)])),
    external: [...BUNDLING.external],
    define: { __BUILD_STAMP__: JSON.stringify(JSON.stringify({ version: '0.0.0-bench', commit: 'bench', buildDate: new Date(0).toISOString() })) },
    logLevel: 'error',
  });
  return [...handlers, BARE].map((name) => {
    const file = join(outdir, `${name}.mjs`);
    return { name, file, bytes: statSync(file).size };
  });
}
