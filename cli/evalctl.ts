#!/usr/bin/env -S node --import tsx
/**
 * evalctl: the evaluation platform from CI.
 *
 *   evalctl run --version <id> --test <id> [--metric <id>]… [--repetitions k] [--threshold x]
 *               [--baseline <runId>] [--junit <file>] [--json] [floors]
 *   evalctl compare <runId> --baseline <runId> [--junit <file>] [--json] [floors]
 *   floors: [--min-score <metric>=<x>]… [--min-pass-rate [<metric>=]<x>]… [--max-drop [<metric>=]<x>]…
 *
 * The API from EVAL_API_URL and EVAL_API_KEY (or --api-url, --api-key); with neither set, the local
 * runtime of this checkout (`npm start`, found through its data directory), said on stderr. `run`
 * starts a run and follows it to the end (progress on stderr), then prints each metric's score,
 * interval and pass rate and, with --baseline, the comparison; `compare` compares two finished
 * runs. --json prints only `{run, comparison?, gates?}` on stdout; --junit writes the run's JUnit
 * document (GET /runs/{id}/junit: the service builds it).
 *
 * Exit codes: 0 nothing regressed and every floor held; 1 a metric regressed, a floor broke, or the
 * run FAILED (or was CANCELLED); 2 a usage or API error, named in one line on stderr (never a stack
 * trace), with evalctl's flags named where the API named the fields they set.
 */
import { writeFile } from 'node:fs/promises';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Run, RunComparison } from '../shared/schemas/runs.js';
import { Api, ApiError } from './api.js';
import { checkGates, type Gate, gateArgument, gatesSummary, unknownGateMetrics } from './gates.js';
import { localRuntime } from './local-runtime.js';
import { progressReporter } from './progress.js';
import { comparisonSummary, exitCodeOf, runSummary } from './report.js';

/** A mistake of the caller (a flag, a value, a missing setting): exit 2. */
class UsageError extends Error {}

const FINISHED = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

interface Common {
  apiUrl?: string;
  apiKey?: string;
  junit?: string;
  json?: boolean;
  minScore?: Gate[];
  minPassRate?: Gate[];
  maxDrop?: Gate[];
  /** How often the run is read while it runs (ms); hidden, for tests. */
  pollMs: number;
}

const gatesOf = (o: Common): Gate[] => [...(o.minScore ?? []), ...(o.minPassRate ?? []), ...(o.maxDrop ?? [])];

/**
 * The API: the flags, else EVAL_API_URL and EVAL_API_KEY; with none of them set, the local runtime
 * this checkout's `npm start` runs (said on stderr, so a CI log shows which service answered).
 */
async function apiOf(o: Common): Promise<Api> {
  let url = o.apiUrl || process.env.EVAL_API_URL;
  let key = o.apiKey || process.env.EVAL_API_KEY;
  if (!url && !key) {
    const local = await localRuntime();
    if ('problem' in local)
      throw new UsageError(
        `no API URL: set EVAL_API_URL and EVAL_API_KEY (or pass --api-url, --api-key), or start the local runtime with \`npm start\` (${local.problem})`,
      );
    ({ url, key } = local);
    process.stderr.write(
      `evalctl: EVAL_API_URL is not set: using the local runtime on ${url} (from ${local.recordPath}) with its demo key\n`,
    );
  }
  if (!url) throw new UsageError('no API URL: set EVAL_API_URL or pass --api-url');
  if (!key) throw new UsageError('no API key: set EVAL_API_KEY or pass --api-key');
  if (!/^https?:\/\/[^/]/.test(url))
    throw new UsageError(`the API URL must start with http:// or https://, got ${url}`);
  return new Api({ url, key });
}

function integerIn(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}

function numberIn(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`must be a number from ${min} to ${max}`);
    return n;
  };
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const runPath = (id: string) => `/runs/${encodeURIComponent(id)}`;

/** Reads the run until it has finished, showing its progress. */
async function follow(api: Api, created: Run, pollMs: number, quiet: boolean): Promise<Run> {
  const progress = quiet ? undefined : progressReporter(`run ${created.id}`);
  let run = created;
  try {
    for (;;) {
      const p = run.progress;
      const finished = FINISHED.has(run.status);
      progress?.update(p.completed + p.failed, p.total, run.status, finished);
      if (finished) return run;
      await sleep(pollMs);
      run = await api.json<Run>('GET', runPath(run.id));
    }
  } finally {
    progress?.stop();
  }
}

/**
 * Refuses floors that name a metric the run does not have (a typo must not pass as a floor that
 * held); a run just started for nothing is cancelled first.
 */
async function requireGateMetrics(api: Api, o: Common, run: Run, cancel: boolean): Promise<void> {
  const unknown = unknownGateMetrics(gatesOf(o), run);
  if (unknown.length === 0) return;
  let cancelled = '';
  if (cancel)
    cancelled = await api
      .json('POST', `${runPath(run.id)}/cancel`)
      .then(() => `; run ${run.id} was cancelled`)
      .catch(() => `; run ${run.id} was started and could not be cancelled`);
  throw new UsageError(`${unknown.join('; ')}${cancelled}`);
}

/** Prints the result, writes the JUnit document, checks the floors, and says how to exit. */
async function finish(api: Api, o: Common, run: Run, baseline?: string): Promise<0 | 1> {
  const comparison = baseline
    ? await api.json<RunComparison>('GET', `${runPath(run.id)}/comparison`, { baseRunId: baseline })
    : undefined;
  const gates = gatesOf(o);
  const checks = checkGates(gates, run, comparison);
  if (o.junit) {
    const xml = await api.text(`${runPath(run.id)}/junit`, { baseRunId: baseline });
    try {
      await writeFile(o.junit, xml);
    } catch (error) {
      throw new UsageError(`cannot write the JUnit file ${o.junit}: ${(error as Error).message}`);
    }
  }
  if (o.json) {
    const out = { run, ...(comparison ? { comparison } : {}), ...(gates.length ? { gates: checks } : {}) };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    // stdout holds JSON only: a broken floor is said on stderr too, so the CI log shows why.
    for (const c of checks) if (!c.held) process.stderr.write(`evalctl: floor broken: ${c.message}\n`);
  } else {
    process.stdout.write(`${runSummary(run)}\n`);
    if (comparison) process.stdout.write(`${comparisonSummary(comparison)}\n`);
    if (gates.length) process.stdout.write(`${gatesSummary(checks)}\n`);
    if (o.junit) process.stdout.write(`JUnit report written to ${o.junit}\n`);
  }
  return exitCodeOf(run, comparison, checks);
}

function program(setExit: (code: 0 | 1) => void): Command {
  const root = new Command('evalctl')
    .description('Run and compare evaluations of the evaluation platform from CI.')
    .exitOverride()
    // Commander's own error printing (and the help it adds to a wrong call) is replaced by
    // evalctl's one line (see main); asked-for help still goes to stdout.
    .configureOutput({ outputError: () => undefined, writeErr: () => undefined });
  const common = (c: Command) =>
    c
      .option('--api-url <url>', 'the API root (default: $EVAL_API_URL)')
      .option('--api-key <key>', 'the API key (default: $EVAL_API_KEY)')
      .option('--junit <file>', 'write the JUnit XML report to this file')
      .option('--json', 'print only JSON on stdout: {run, comparison?, gates?}')
      .option(
        '--min-score <metric>=<x>',
        'fail (exit 1) when the metric’s score (by name or id) is below x (repeatable)',
        gateArgument('--min-score', true),
      )
      .option(
        '--min-pass-rate <[metric=]x>',
        'fail when a metric’s pass rate is below x: every metric’s, or the one named (repeatable)',
        gateArgument('--min-pass-rate', false),
      )
      .option(
        '--max-drop <[metric=]x>',
        'fail when a metric’s score fell by more than x against --baseline, significant or not (repeatable)',
        gateArgument('--max-drop', false),
      )
      .addOption(
        new Option('--poll-ms <ms>', 'how often the run is read')
          .hideHelp()
          .argParser(integerIn(50, 600_000))
          .default(2000),
      );

  common(
    root
      .command('run')
      .description('start a run of a test against a version, follow it to the end, and report it')
      .requiredOption('--version <id>', 'the version whose agent runs')
      .requiredOption('--test <id>', 'the test whose cases run')
      .option(
        '--metric <id>',
        'a metric to score with (repeatable; default: those linked to the test’s specification)',
        collect,
        [],
      )
      .option('--repetitions <k>', 'times each case runs (1–10, default 1)', integerIn(1, 10))
      .option('--threshold <x>', 'the score a case must reach to pass (0–1, default 0.5)', numberIn(0, 1))
      .option('--baseline <runId>', 'a finished run to compare with'),
  ).action(
    async (
      o: Common & {
        version: string;
        test: string;
        metric: string[];
        repetitions?: number;
        threshold?: number;
        baseline?: string;
      },
    ) => {
      if (o.maxDrop?.length && !o.baseline)
        throw new UsageError('--max-drop needs --baseline: the run whose scores the fall is measured against');
      const api = await apiOf(o);
      const created = await api.json<Run>('POST', '/runs', undefined, {
        versionId: o.version,
        testId: o.test,
        ...(o.metric.length ? { metricIds: o.metric } : {}),
        ...(o.repetitions !== undefined ? { repetitions: o.repetitions } : {}),
        ...(o.threshold !== undefined ? { threshold: o.threshold } : {}),
      });
      await requireGateMetrics(api, o, created, true);
      const run = await follow(api, created, o.pollMs, false);
      setExit(await finish(api, o, run, o.baseline));
    },
  );

  common(
    root
      .command('compare')
      .description('compare a finished run with a baseline run')
      .argument('<runId>', 'the run to judge')
      .requiredOption('--baseline <runId>', 'the run to compare it with'),
  ).action(async (runId: string, o: Common & { baseline: string }) => {
    const api = await apiOf(o);
    const run = await api.json<Run>('GET', runPath(runId));
    await requireGateMetrics(api, o, run, false);
    setExit(await finish(api, o, run, o.baseline));
  });
  return root;
}

/** One line on stderr, no stack trace. */
function fail(message: string): never {
  process.stderr.write(`evalctl: ${message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  if (argv.length === 0) fail('missing command: run or compare (see evalctl --help)');
  let code: 0 | 1 = 0;
  try {
    await program((c) => (code = c)).parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help (and help <command>) printed the help: that is a success.
      if (error.code === 'commander.helpDisplayed' || error.exitCode === 0) process.exit(0);
      // Options but no command: commander would print the help on stderr.
      if (error.code === 'commander.help') fail('missing command: run or compare (see evalctl --help)');
      fail(`${error.message.replace(/^error: /, '')} (see evalctl --help)`);
    }
    if (error instanceof ApiError) fail(error.forCli());
    if (error instanceof UsageError) fail(error.message);
    fail(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(code);
}

await main(process.argv.slice(2));
