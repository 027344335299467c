/**
 * A generated build directory that is written again only when what it is made from changed: its
 * `.inputs` stamp holds the digest of the inputs and the files the last build wrote. The pre-builds
 * run before bundling (infra/build-modules.ts) from the tests, the benchmarks and each synth, and
 * rollup takes seconds, so an unchanged build is a read of the stamp.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from './constructs/app-function.js';
import { writeIfChanged } from './validators.js';

/**
 * Writes `build()`'s files (name → code) into `dir` unless the last build was made from the same
 * inputs (`files`, read from the project root, and `extra`); `.mjs` files of an older build are removed.
 */
export async function writeStampedBuild(
  dir: string,
  inputs: { files: string[]; extra: unknown },
  build: () => Promise<Map<string, string>>,
): Promise<void> {
  const stamp = resolve(dir, '.inputs');
  const hash = createHash('sha256');
  for (const file of inputs.files) hash.update(readFileSync(resolve(PROJECT_ROOT, file)));
  const digest = hash.update(JSON.stringify(inputs.extra)).digest('hex');
  if (existsSync(stamp)) {
    const [built, ...files] = readFileSync(stamp, 'utf8').split('\n');
    if (built === digest && files.every((f) => existsSync(resolve(dir, f)))) return;
  }
  const written: string[] = [];
  for (const [file, code] of await build()) {
    writeIfChanged(resolve(dir, file), code);
    written.push(file);
  }
  // Another process (a parallel test worker) may be removing the same stale files: `force`.
  for (const file of readdirSync(dir))
    if (file.endsWith('.mjs') && !written.includes(file)) rmSync(resolve(dir, file), { force: true });
  writeIfChanged(stamp, [digest, ...written].join('\n'));
}
