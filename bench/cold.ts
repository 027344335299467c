/**
 * `npm run bench:cold [-- --rounds N] [-- --only a,b] [-- --source-maps off] [-- --clock cpu]`: cold
 * start, side by side in one run. `--clock cpu` times the import's CPU time instead of wall time;
 * `--source-maps off` times every bundle without the deployed `--enable-source-maps`, to measure
 * what the source maps cost.
 *
 * 1. Bundles every function of the CDK stack with CDK's settings and, for each, its floor: a
 *    bundle that only creates the SDK clients the function holds and sends one command through
 *    each (bench/bundles.ts); the DynamoDB-only floor is the document client and one GetItem.
 * 2. For each function, `rounds` times, in alternating order: imports its floor, the function and
 *    the DynamoDB-only floor, each in a fresh Node process with the functions' NODE_OPTIONS,
 *    timing the import alone.
 * 3. Prints each function's size, median import time, its ratio to its own floor (goal <= 1.2) and
 *    to the DynamoDB-only floor, worst first; then the median of the second ratio (goal <= 1.1).
 * 4. Counts the DynamoDB requests of GET /monitors/{id}/results (authorizer included) on the
 *    local runtime (DynamoDB Local), for a monitor bound to two metrics.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleAll, DYNAMODB_FLOOR, isFloor, type Bundle } from './bundles.js';

const MAX_RATIO = 1.2;
const MAX_MEDIAN_RATIO = 1.1;
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const rounds = Number(arg('rounds') ?? 7);
const only = arg('only')?.split(',');
const sourceMaps = (arg('source-maps') ?? 'on') !== 'off';
const clockKind = arg('clock') === 'cpu' ? 'cpu' : 'wall';

/** The variables a function reads at load (placeholders: nothing is called). */
const ENV = {
  ...process.env,
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  TABLE_NAME: 'bench',
  BUCKET_NAME: 'bench',
  EVALUATION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/bench',
  RUN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/bench-runs',
  EVALUATOR_FUNCTION_NAME: 'bench',
  SCANNER_FUNCTION_NAME: 'bench',
  AGGREGATOR_FUNCTION_NAME: 'bench',
  RUNNER_FUNCTION_NAME: 'bench',
  GENERATOR_FUNCTION_NAME: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // As deployed (infra/constructs/app-function.ts), unless measuring their cost.
  NODE_OPTIONS: sourceMaps ? '--enable-source-maps' : '',
};

/** Milliseconds to import one bundle in a fresh process (the process's own start excluded). */
/**
 * Milliseconds to import one bundle in a fresh process (the process's own start excluded): wall
 * time, or with `--clock cpu` the CPU time the process spent on it (user + system), which other
 * work on a busy machine disturbs far less.
 */
function importMs(file: string): number {
  const url = JSON.stringify(pathToFileURL(file).href);
  const script =
    clockKind === 'cpu'
      ? `const c = process.cpuUsage(); await import(${url}); const d = process.cpuUsage(c); process.stdout.write(String((d.user + d.system) / 1000));`
      : `const t = performance.now(); await import(${url}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: ENV, encoding: 'utf8' }));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export interface ColdRow {
  name: string;
  kib: number;
  floor: string;
  ms: number;
  floorMs: number;
  dynamoMs: number;
  /** Import time over the function's own floor's (goal <= 1.2). */
  ratio: number;
  /** Import time over the DynamoDB-only floor's (the median goal <= 1.1). */
  dynamoRatio: number;
}

/** Times every function against its floor and the DynamoDB-only floor, alternating, and returns the rows worst first. */
export function timeImports(bundles: Bundle[], n: number): ColdRow[] {
  const byName = new Map(bundles.map((b) => [b.name, b]));
  const dynamo = byName.get(DYNAMODB_FLOOR)!;
  importMs(dynamo.file); // warm the file cache once
  const rows: ColdRow[] = [];
  for (const b of bundles.filter((x) => !isFloor(x))) {
    const floor = byName.get(b.floor)!;
    const own: number[] = [];
    const ref: number[] = [];
    const dyn: number[] = [];
    for (let i = 0; i < n; i++) {
      // Rotate the order, so no bundle always runs right after another's process.
      const steps = [
        () => ref.push(importMs(floor.file)),
        () => own.push(importMs(b.file)),
        () => dyn.push(importMs(dynamo.file)),
      ];
      for (let k = 0; k < steps.length; k++) steps[(i + k) % steps.length]!();
    }
    const row = {
      name: b.name,
      kib: b.bytes / 1024,
      floor: b.floor,
      ms: median(own),
      floorMs: median(ref),
      dynamoMs: median(dyn),
      ratio: median(own) / median(ref),
      dynamoRatio: median(own) / median(dyn),
    };
    rows.push(row);
    process.stderr.write(`  ${row.name}: ${row.ratio.toFixed(2)} (${row.dynamoRatio.toFixed(2)})\n`);
  }
  return rows.sort((a, c) => c.ratio - a.ratio || c.kib - a.kib);
}

/** The DynamoDB requests of one GET /monitors/{id}/results on the local runtime (authorizer included). */
async function resultsRequests(): Promise<number> {
  process.env.LOG_LEVEL ??= 'warn';
  const { startLocalRuntime } = await import('../infra/local/runtime.js');
  const { freePort } = await import('../infra/local/services.js');
  const runtime = await startLocalRuntime({
    port: await freePort(),
    inMemory: true,
    dataDir: mkdtempSync(join(tmpdir(), 'evp-cold-')),
    scanIntervalSeconds: 0,
    quiet: true,
  });
  try {
    const { observeRequests } = await import('../shared/db/client.js');
    let calls = 0;
    observeRequests(() => calls++);
    const headers = { authorization: `Bearer ${runtime.demoApiKey}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${runtime.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
      ).json()) as { id: string };
    const product = await post('/products', { name: 'cold bench' });
    const monitor = await post('/monitors', {
      productId: product.id,
      name: 'cold bench',
      metricGroupIds: ['mgrp_is_json', 'mgrp_non_empty_output'],
      samplingPercentage: 50,
    });
    const before = calls;
    const res = await fetch(`${runtime.url}/monitors/${monitor.id}/results`, { headers });
    if (res.status !== 200) throw new Error(`results answered ${res.status}: ${await res.text()}`);
    return calls - before;
  } finally {
    await runtime.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outdir = mkdtempSync(join(tmpdir(), 'evp-bundles-'));
  try {
    const started = Date.now();
    const all = await bundleAll(outdir);
    const bundles = only ? all.filter((b) => isFloor(b) || only.includes(b.name)) : all;
    const floors = all.filter(isFloor);
    console.log(
      `bundled ${all.length - floors.length} functions and ${floors.length} floors in ${((Date.now() - started) / 1000).toFixed(0)} s; timing ${rounds} rounds each (${clockKind} time), ${sourceMaps ? 'with' : 'without'} --enable-source-maps`,
    );
    const rows = timeImports(bundles, rounds);
    console.log(`\nfloors: ${floors.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(0)} KiB`).join(', ')}\n`);
    console.log(
      `${'function'.padEnd(34)} ${'KiB'.padStart(6)} ${'floor'.padStart(28)} ${'ms'.padStart(7)} ${'floor ms'.padStart(9)} ${'ratio'.padStart(6)} ${'ddb ms'.padStart(7)} ${'/ddb'.padStart(6)}`,
    );
    for (const r of rows) {
      const flag = r.ratio > MAX_RATIO ? `  ratio > ${MAX_RATIO}` : '';
      console.log(
        `${r.name.padEnd(34)} ${r.kib.toFixed(0).padStart(6)} ${r.floor.padStart(28)} ${r.ms.toFixed(1).padStart(7)} ${r.floorMs.toFixed(1).padStart(9)} ${r.ratio.toFixed(2).padStart(6)} ${r.dynamoMs.toFixed(1).padStart(7)} ${r.dynamoRatio.toFixed(2).padStart(6)}${flag}`,
      );
    }
    const over = rows.filter((r) => r.ratio > MAX_RATIO);
    const medianRatio = median(rows.map((r) => r.dynamoRatio));
    console.log(
      `\n${rows.length - over.length} of ${rows.length} functions within ${MAX_RATIO}× of their floor; median size ${median(rows.map((r) => r.kib)).toFixed(0)} KiB`,
    );
    console.log(`median function / DynamoDB-only floor: ${medianRatio.toFixed(2)} (goal <= ${MAX_MEDIAN_RATIO})`);
    console.log(
      `GET /monitors/{id}/results: ${await resultsRequests()} DynamoDB requests (authorizer included, goal ≤ 8)`,
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
  process.exit(0);
}
