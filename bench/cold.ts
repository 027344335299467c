/**
 * `npm run bench:cold [-- --rounds N] [-- --confirm N] [-- --only a,b] [-- --source-maps on] [-- --clock cpu]`: cold
 * start, side by side in one run. `--clock cpu` times the import's CPU time instead of wall time;
 * `--source-maps on` times every bundle under `--enable-source-maps` (Node parses each map at load),
 * which the functions do not set (they map a logged stack on demand), to measure what it costs.
 *
 * 1. Bundles every function of the CDK stack with CDK's settings and, for each, its floor: a
 *    bundle that only creates the SDK clients the function holds and sends one command through
 *    each (bench/bundles.ts); the DynamoDB-only floor is the document client and one GetItem.
 * 2. For each function, `rounds` times, in alternating order: imports its floor, the function and
 *    the DynamoDB-only floor, each in a fresh Node process with the functions' NODE_OPTIONS. Each
 *    process gives two times: the import alone, and the whole process up to the module loaded
 *    (Node's own start, which every function and floor share, included).
 * 3. Prints each function's size, median import time, its ratio to its own floor (goal <= 1.2) with
 *    that ratio's 90 % bootstrap interval, the same ratio and interval by whole process, and its
 *    import ratio to the DynamoDB-only floor, worst first; then the median of that last ratio (goal
 *    <= 1.1), by whole process (the goals' measure: a cold start is the whole process) and by the
 *    import alone (stricter: it leaves out Node's start, which every bundle shares). A function is
 *    over the goal when its whole interval is; one whose interval holds 1.2 is too close to call
 *    with this many rounds. A function too close to call by whole process is timed again with
 *    `--confirm` rounds (41; 0 for none), and those times replace its first. Last, whether the
 *    goals are met by whole process.
 * 4. Counts the DynamoDB requests of GET /monitors/{id}/results (authorizer included) on the
 *    local runtime (DynamoDB Local), for a monitor bound to two metrics.
 */
// First: the stack this imports makes the logger, which reads its level once.
import './quiet.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleAll, DYNAMODB_FLOOR, isFloor, type Bundle } from './bundles.js';
import { type ColdTimes, coldTimes } from './cold-times.js';
import { goalsMet, median, ratioInterval, settledWithin, type Verdict, verdictOf } from './ratios.js';

const MAX_RATIO = 1.2;
const MAX_MEDIAN_RATIO = 1.1;
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const rounds = Number(arg('rounds') ?? 7);
/** Rounds for a second pass over the functions the first left too close to call by whole process (0: none). */
const confirmRounds = Number(arg('confirm') ?? 41);
const only = arg('only')?.split(',');
const sourceMaps = arg('source-maps') === 'on';
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
  // As deployed (infra/constructs/app-function.ts sets no NODE_OPTIONS), unless measuring the flag.
  NODE_OPTIONS: sourceMaps ? '--enable-source-maps' : '',
};

/** One fresh process's import and whole-process times for a bundle, on this run's clock. */
const timeOnce = (file: string) => coldTimes(file, clockKind, ENV);

export interface ColdRow {
  name: string;
  /** How many rounds its times come from. */
  rounds: number;
  kib: number;
  floor: string;
  ms: number;
  floorMs: number;
  dynamoMs: number;
  /** Import time over the function's own floor's (goal <= 1.2). */
  ratio: number;
  /** The ratio's 90 % bootstrap interval over the rounds. */
  interval: [number, number];
  /** Import time over the DynamoDB-only floor's (the median goal <= 1.1). */
  dynamoRatio: number;
  /** The same three by whole process (Node's start to the module loaded). */
  process: { ratio: number; interval: [number, number]; dynamoRatio: number };
}

/** Times every function against its floor and the DynamoDB-only floor, alternating, and returns the rows worst first. */
export function timeImports(bundles: Bundle[], n: number): ColdRow[] {
  const byName = new Map(bundles.map((b) => [b.name, b]));
  const dynamo = byName.get(DYNAMODB_FLOOR)!;
  timeOnce(dynamo.file); // warm the file cache once
  const rows: ColdRow[] = [];
  for (const b of bundles.filter((x) => !isFloor(x))) {
    const floor = byName.get(b.floor)!;
    const own: ColdTimes[] = [];
    const ref: ColdTimes[] = [];
    const dyn: ColdTimes[] = [];
    for (let i = 0; i < n; i++) {
      // Rotate the order, so no bundle always runs right after another's process.
      const steps = [
        () => ref.push(timeOnce(floor.file)),
        () => own.push(timeOnce(b.file)),
        () => dyn.push(timeOnce(dynamo.file)),
      ];
      for (let k = 0; k < steps.length; k++) steps[(i + k) % steps.length]!();
    }
    const of = (times: ColdTimes[], key: keyof ColdTimes) => times.map((t) => t[key]);
    const ratios = (key: keyof ColdTimes) => ({
      ratio: median(of(own, key)) / median(of(ref, key)),
      interval: ratioInterval(of(own, key), of(ref, key)),
      dynamoRatio: median(of(own, key)) / median(of(dyn, key)),
    });
    const row = {
      name: b.name,
      rounds: n,
      kib: b.bytes / 1024,
      floor: b.floor,
      ms: median(of(own, 'import')),
      floorMs: median(of(ref, 'import')),
      dynamoMs: median(of(dyn, 'import')),
      ...ratios('import'),
      process: ratios('process'),
    };
    rows.push(row);
    process.stderr.write(
      `  ${row.name}: ${row.ratio.toFixed(2)} ${span(row.interval)} (${row.dynamoRatio.toFixed(2)}), process ${row.process.ratio.toFixed(2)} ${span(row.process.interval)}\n`,
    );
  }
  return rows.sort(worstFirst);
}

const worstFirst = (a: ColdRow, c: ColdRow) => c.ratio - a.ratio || c.kib - a.kib;

const span = ([low, high]: readonly [number, number]) => `[${low.toFixed(2)}–${high.toFixed(2)}]`;

const VERDICT_NOTE: Record<Verdict, string> = {
  over: `over ${MAX_RATIO}`,
  close: 'too close to call',
  within: '',
};

/** The DynamoDB requests of one GET /monitors/{id}/results on the local runtime (authorizer included). */
async function resultsRequests(): Promise<number> {
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
    let rows = timeImports(bundles, rounds);
    // A function the first pass leaves too close to call by whole process is timed again with more
    // rounds, and those times replace its first ones: a few rounds of every function on a shared
    // machine always leave some medians on the wrong side of the line by noise alone.
    const unsettled = rows.filter((r) => !settledWithin(r.process, MAX_RATIO)).map((r) => r.name);
    if (confirmRounds > rounds && unsettled.length > 0) {
      console.log(
        `again with ${confirmRounds} rounds, too close to call by whole process after ${rounds}: ${unsettled.join(', ')}`,
      );
      const again = timeImports([...floors, ...bundles.filter((b) => unsettled.includes(b.name))], confirmRounds);
      rows = [...rows.filter((r) => !unsettled.includes(r.name)), ...again].sort(worstFirst);
    }
    const retimed = rows.filter((r) => r.rounds !== rounds).length;
    const roundsNote =
      retimed > 0
        ? `medians of ${rounds} rounds, ${confirmRounds} for the ${retimed} timed again`
        : `medians of ${rounds} rounds`;
    console.log(`\nfloors: ${floors.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(0)} KiB`).join(', ')}\n`);
    console.log(
      `${'function'.padEnd(34)} ${'KiB'.padStart(6)} ${'floor'.padStart(28)} ${'ms'.padStart(7)} ${'floor ms'.padStart(9)} ${'ratio'.padStart(6)} ${'90 % interval'.padStart(13)} ${'process'.padStart(7)} ${'90 % interval'.padStart(13)} ${'ddb ms'.padStart(7)} ${'/ddb'.padStart(6)} ${'rounds'.padStart(6)}`,
    );
    const verdicts = rows.map((r) => verdictOf(r.interval, MAX_RATIO));
    const processVerdicts = rows.map((r) => verdictOf(r.process.interval, MAX_RATIO));
    rows.forEach((r, i) => {
      const notes = [verdicts[i]!, processVerdicts[i]!].map((v, k) =>
        v === 'within' ? '' : `${k === 0 ? 'import' : 'process'}: ${VERDICT_NOTE[v]}`,
      );
      console.log(
        `${r.name.padEnd(34)} ${r.kib.toFixed(0).padStart(6)} ${r.floor.padStart(28)} ${r.ms.toFixed(1).padStart(7)} ${r.floorMs.toFixed(1).padStart(9)} ${r.ratio.toFixed(2).padStart(6)} ${span(r.interval).padStart(13)} ${r.process.ratio.toFixed(2).padStart(7)} ${span(r.process.interval).padStart(13)} ${r.dynamoMs.toFixed(1).padStart(7)} ${r.dynamoRatio.toFixed(2).padStart(6)} ${String(r.rounds).padStart(6)}  ${notes.filter(Boolean).join('; ')}`.trimEnd(),
      );
    });
    // The goals are measured as whole fresh processes: a cold start is the whole process. The import
    // alone leaves out Node's own start, which every function and floor share: stricter, shown beside.
    const measures = [
      { name: 'by whole process (the goals)', of: (r: ColdRow) => r.process, verdicts: processVerdicts },
      { name: 'by import alone (stricter)', of: (r: ColdRow) => r, verdicts },
    ].map((m) => ({ ...m, medianRatio: median(rows.map((r) => m.of(r).dynamoRatio)) }));
    console.log('');
    for (const { medianRatio, ...m } of measures) {
      const count = (v: Verdict) => m.verdicts.filter((x) => x === v).length;
      // The goal is over every function: with --only, the median is of the functions timed, not the goal's.
      console.log(
        `${m.name}: ${rows.filter((r) => m.of(r).ratio <= MAX_RATIO).length} of ${rows.length} functions at or under ${MAX_RATIO}× their floor (${roundsNote}); by the 90 % intervals: ${count('within')} within, ${count('over')} over, ${count('close')} too close to call; ${
          only
            ? `median of the ${rows.length} functions timed / DynamoDB-only floor: ${medianRatio.toFixed(2)} (the goal, <= ${MAX_MEDIAN_RATIO}, is over all functions: run without --only)`
            : `median function / DynamoDB-only floor: ${medianRatio.toFixed(2)} (goal <= ${MAX_MEDIAN_RATIO})`
        }`,
      );
    }
    const goal = measures[0]!;
    const met = goalsMet(rows.map(goal.of), only ? undefined : goal.medianRatio, {
      maxRatio: MAX_RATIO,
      maxMedian: MAX_MEDIAN_RATIO,
    });
    console.log(
      `goals by whole process: ${met ? 'met' : 'not met'} (every function's median at or under ${MAX_RATIO}× its floor and none over by its interval${only ? '; the median goal needs every function: run without --only' : `, and the median function at or under ${MAX_MEDIAN_RATIO}× the DynamoDB-only floor`})`,
    );
    console.log(`median size ${median(rows.map((r) => r.kib)).toFixed(0)} KiB`);
    console.log(
      `GET /monitors/{id}/results: ${await resultsRequests()} DynamoDB requests (authorizer included, goal ≤ 8)`,
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
  process.exit(0);
}
