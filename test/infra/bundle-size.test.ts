import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE, bundleAll, MAX_BUNDLE_BYTES, stackHandlers, type Bundle } from '../../bench/bundles.js';
import { jobs, routes } from '../../infra/routes.js';
import { RUNTIME_MODULES } from '../../infra/constructs/app-function.js';

/**
 * Functions still above the 400 KiB budget (docs/cold-start.md says why), with the size they may
 * not pass. Every other function of the stack, and any new one, must stay within 400 KiB; an
 * entry that is no longer needed fails too, so the list only shrinks.
 */
const OVER_BUDGET_KIB: Record<string, number> = JSON.parse(readFileSync(join(import.meta.dirname, 'bundle-budget.json'), 'utf8')) as Record<string, number>;

let outdir: string;
let bundles: Bundle[];
beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'evp-bundle-size-'));
  bundles = await bundleAll(outdir); // one esbuild build of every function the stack defines
}, 600_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('function bundles', () => {
  it('cover every function the CDK stack defines', () => {
    const names = bundles.map((b) => b.name).filter((n) => n !== BARE);
    expect(names.sort()).toEqual(stackHandlers());
    expect(names).toEqual(expect.arrayContaining(['authorizer', ...jobs.map((j) => j.handler), ...routes.map((r) => r.handler)]));
  });

  it('import a module left out of the bundles only where the function ships it (RUNTIME_MODULES)', () => {
    for (const module of Object.keys(RUNTIME_MODULES)) {
      const importing = bundles.filter((b) => b.name !== BARE && readFileSync(b.file, 'utf8').includes(JSON.stringify(module))).map((b) => b.name);
      const shipping = jobs.filter((j) => j.runtimeModules?.includes(module)).map((j) => j.handler);
      expect(importing.sort(), module).toEqual(shipping.sort());
    }
  });

  it('weigh at most 400 KiB each (the listed exceptions at most their recorded size)', () => {
    const over = bundles
      .filter((b) => b.name !== BARE)
      .flatMap((b) => {
        const limit = OVER_BUDGET_KIB[b.name] !== undefined ? OVER_BUDGET_KIB[b.name]! * 1024 : MAX_BUNDLE_BYTES;
        return b.bytes > limit ? [`${b.name}: ${(b.bytes / 1024).toFixed(0)} KiB > ${(limit / 1024).toFixed(0)} KiB`] : [];
      });
    expect(over).toEqual([]);
    const stale = Object.keys(OVER_BUDGET_KIB).filter((name) => {
      const b = bundles.find((x) => x.name === name);
      return !b || b.bytes <= MAX_BUNDLE_BYTES;
    });
    expect(stale, 'remove these from test/infra/bundle-budget.json: they fit 400 KiB now').toEqual([]);
  });

  it('compile no route schema at load: validators are precompiled (npm run validators)', () => {
    // The formats list shared/schemas/ajv.ts gives ajv-formats when it compiles route schemas.
    const compiling = bundles.filter((b) => b.name !== BARE && readFileSync(b.file, 'utf8').includes('"date-time","uri","email","date"')).map((b) => b.name);
    expect(compiling).toEqual([]);
    expect(readFileSync(bundles.find((b) => b.name === 'products/get')!.file, 'utf8'), 'no ajv at all in a catalog route').not.toContain('strictSchema');
  });
});
