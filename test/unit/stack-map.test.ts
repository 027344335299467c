import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/observability/logger.js';
import { mapStack } from '../../shared/observability/stack-map.js';

// A minified bundle with its map beside it, as a function's asset holds them, whose error is
// thrown on a known line of a known source.
let dir: string;
let stack: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evp-stack-map-'));
  mkdirSync(join(dir, 'src/domain'), { recursive: true });
  mkdirSync(join(dir, 'out/fn'), { recursive: true });
  writeFileSync(
    join(dir, 'src/domain/rule.ts'),
    [
      'export function check(value: number): number {',
      '  if (value < 0) {',
      "    throw new Error('negative');",
      '  }',
      '  return value;',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'src/index.ts'),
    "import { check } from './domain/rule';\nexport const run = (v: number) => check(v) + 1;\n",
  );
  await build({
    entryPoints: [join(dir, 'src/index.ts')],
    outfile: join(dir, 'out/fn/index.mjs'),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'error',
  });
  // Thrown in a process of its own without --enable-source-maps, as a function runs.
  const out = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { run } = await import(${JSON.stringify(join(dir, 'out/fn/index.mjs'))}); try { run(-1); } catch (e) { process.stdout.write(e.stack); }`,
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  stack = out.stdout;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mapStack', () => {
  it('maps the bundle positions of a logged stack to the lines of their sources', () => {
    expect(stack).toMatch(/index\.mjs:1:\d+/);
    const mapped = mapStack(stack);
    expect(mapped.split('\n')[0]).toBe('Error: negative');
    // The throw is line 3, column 11 of the rule (`new Error`), named relative to the bundle's folder's root.
    expect(mapped).toMatch(/ \(?src\/domain\/rule\.ts:3:11\)?$/m);
    expect(mapped).toMatch(/src\/index\.ts:2:\d+/);
    expect(mapped).not.toMatch(/index\.mjs:1:/);
  });

  it('leaves alone a stack Node already mapped, a frame with no map beside its file, and no stack', () => {
    const tsStack = 'Error: x\n    at check (/var/task/shared/db/client.ts:12:7)';
    expect(mapStack(tsStack)).toBe(tsStack);
    const unmapped =
      'Error: y\n    at f (file:///nowhere/index.mjs:1:200)\n    at node:internal/process/task_queues:95:5';
    expect(mapStack(unmapped)).toBe(unmapped);
    expect(mapStack(undefined)).toBeUndefined();
  });

  it('maps the stack and location of an error the logger formats', () => {
    const error = new Error('negative');
    error.stack = stack;
    const written: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
        written.push(String(chunk));
        return true;
      }),
    );
    try {
      logger.error('check failed', error);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const line = written.map((w) => JSON.parse(w)).find((l) => l.message === 'check failed');
    expect(line.error).toMatchObject({ name: 'Error', message: 'negative', location: 'src/domain/rule.ts:3' });
    expect(line.error.stack).toBe(mapStack(stack));
  });
});
