/**
 * `npm run bench:runs [-- --cases N]` (not part of `npm test`): how fast runs execute on the local
 * runtime, how that holds at scale, and what the same work would cost on AWS.
 * 1. Reference: 1,000 single-turn cases (one run) against a local agent that answers in 50 ms, no
 *    rate limit, one deterministic metric, after an unmeasured warm-up run of 200 (DynamoDB
 *    Local's JVM and V8 warm up on a process's first run). Skipped when the workload is those
 *    1,000 cases itself.
 * 2. Workload: `--cases` single-turn cases the same way. A run executes at most MAX_RUN_CASES
 *    (5,000) sessions, so a larger workload is several runs of as many cases each (10,000: two
 *    runs of 5,000), of as many tests, started together and measured as one workload: its wall
 *    time from the first POST /runs to the last run finished. Prints the wall time against the
 *    ideal (cases × 50 ms / concurrency), its wall time per case against the reference's, the
 *    bench process's peak RSS while it runs (the local runtime runs in this process; sampled every
 *    250 ms), the DynamoDB requests per case (every request the document client sends meanwhile:
 *    the fan-outs, the steps, the finishes, the authorizer and this script's progress polls,
 *    counted by its own hook `observeRequests`), and what it would cost on AWS per 1,000 cases
 *    (bench/aws-cost.ts at the prices of bench/aws-prices.ts; the LLM excluded).
 * 3. Rate limit: a run on a connection limited to RATE per minute. Prints the achieved requests per
 *    minute (from the agent's own clock) against the limit, and their ratio (at most 1.0).
 * Ends with these lines, from this one sitting: `wall seconds`, `wall time / ideal`,
 * `dynamodb requests per case`, `wall per case / 1000-case wall per case` (with a reference run),
 * `peak memory MiB`, `aws cost per 1000 cases`, `achieved rate / rate limit`.
 * Options (each defaults to its environment variable, then to the value shown): --cases
 * (BENCH_CASES, 1000), --runs (BENCH_RUNS, as few as the cap allows), --concurrency
 * (RUN_LOCAL_CONCURRENCY, 25), --rate (BENCH_RATE, 600), --rate-cases (BENCH_RATE_CASES, 40).
 */
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalRuntime } from '../infra/local/runtime.js';
import { freePort } from '../infra/local/services.js';
import { observeLocalUsage } from '../infra/local/usage.js';
import { MAX_RUN_CASES } from '../shared/schemas/runs.js';
import { benchClient } from './http.js';
import { awsCost, usageTally, type AwsUsage } from './aws-cost.js';
import { AWS_PRICES } from './aws-prices.js';
import { planRuns, wallPerCaseRatio } from './runs-plan.js';

const USAGE =
  'usage: npm run bench:runs -- [--cases N] [--runs K] [--concurrency C] [--rate PER_MINUTE] [--rate-cases N]';
const REFERENCE_CASES = 1000;
/** The unmeasured run before the reference. */
const WARMUP_CASES = 200;
const AGENT_MS = 50;
const POLL_MS = 200;

function options() {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        cases: { type: 'string' },
        runs: { type: 'string' },
        concurrency: { type: 'string' },
        rate: { type: 'string' },
        'rate-cases': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const whole = (name: string, env: string, fallback?: number): number | undefined => {
    const raw = (values[name] as string | undefined) ?? process.env[env];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) {
      console.error(`--${name} (or ${env}) must be a whole number from 1, not ${raw}\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  const cases = whole('cases', 'BENCH_CASES', REFERENCE_CASES)!;
  let plan: number[];
  try {
    plan = planRuns(cases, MAX_RUN_CASES, whole('runs', 'BENCH_RUNS'));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  return {
    cases,
    plan,
    concurrency: whole('concurrency', 'RUN_LOCAL_CONCURRENCY', 25)!,
    rate: whole('rate', 'BENCH_RATE', 600)!,
    rateCases: whole('rate-cases', 'BENCH_RATE_CASES', 40)!,
  };
}

const { cases: CASES, plan: PLAN, concurrency: CONCURRENCY, rate: RATE, rateCases: RATE_CASES } = options();
process.env.RUN_LOCAL_CONCURRENCY = String(CONCURRENCY);
/** The reference run, unless the workload is that run itself. */
const WITH_REFERENCE = !(PLAN.length === 1 && CASES === REFERENCE_CASES);

// The agent: answers every message after 50 ms, and notes when each request arrived.
const arrivals: { path: string; at: number }[] = [];
const agent = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    arrivals.push({ path: req.url ?? '', at: Date.now() });
    const message = (JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { message?: string }).message ?? '';
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ reply: message })),
      AGENT_MS,
    );
  });
});
await new Promise<void>((r) => agent.listen(0, '127.0.0.1', () => r()));
const agentUrl = `http://127.0.0.1:${(agent.address() as { port: number }).port}`;

const runtime = await startLocalRuntime({
  port: await freePort(),
  inMemory: true,
  dataDir: mkdtempSync(join(tmpdir(), 'evp-bench-runs-')),
  scanIntervalSeconds: 0,
  quiet: true,
});

const http = benchClient(runtime.url, runtime.demoApiKey);
// The runtime set TABLE_NAME and the endpoint: the document client module can load now (the same
// instance the runtime's functions use, so it sees their requests).
const { observeRequests, observeCapacity } = await import('../shared/db/client.js');

async function uploadCases(n: number, prefix: string): Promise<string> {
  const { url, uri } = await http('GET', '/storage/generate-put-presigned-url?fileName=bench.csv&contentType=text/csv');
  const rows = Array.from({ length: n }, (_, i) => `${prefix} question ${i},${prefix} question ${i}`);
  const put = await fetch(url, {
    method: 'PUT',
    body: `input,expected_output\n${rows.join('\n')}\n`,
    headers: { 'content-type': 'text/csv' },
  });
  if (put.status !== 200) throw new Error(`upload failed: ${put.status}`);
  return uri;
}

/** A version whose CONVERSATION connection calls the agent at /<label> (optionally rate-limited). */
async function version(rateLimit: number | null, label: string) {
  const product = await http('POST', '/products', { name: `bench ${label}` });
  const conn = await http('POST', '/endpointConnections', {
    productId: product.id,
    name: label,
    url: `${agentUrl}/${label}`,
    inputTemplate: '{"message": "{{ input.user_message }}"}',
    outputMapping: { output: '$.reply' },
    type: 'CONVERSATION',
    rateLimit,
  });
  const v = await http('POST', '/versions', {
    productId: product.id,
    name: 'v1',
    conversationEndpointConnectionId: conn.id,
  });
  return { productId: product.id as string, versionId: v.id as string };
}

/** A QUALITY test of n cases in the product. */
async function test(productId: string, n: number, label: string): Promise<string> {
  // The first cases come from an uploaded CSV; the rest are added through POST /testCases (a large
  // import inside one request can outlast the local function timeout on a busy machine).
  const first = Math.min(n, 100);
  const created = await http('POST', '/tests', {
    productId,
    name: label,
    type: 'QUALITY',
    uri: await uploadCases(first, label),
  });
  const rest = Array.from({ length: n - first }, (_, i) => first + i);
  for (let i = 0; i < rest.length; i += 20) {
    await Promise.all(
      rest.slice(i, i + 20).map((k) =>
        http('POST', '/testCases', {
          testId: created.id,
          input: `${label} question ${k}`,
          expectedOutput: `${label} question ${k}`,
        }),
      ),
    );
  }
  return created.id;
}

/** The peak RSS of this process (the runtime, the agent and this script), sampled every 250 ms, and of DynamoDB Local's JVM when found. */
function memorySampler() {
  let peak = process.memoryUsage().rss;
  let javaPeak: number | undefined;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
    const java = dynamoDbLocalRss();
    if (java !== undefined) javaPeak = Math.max(javaPeak ?? 0, java);
  };
  sample();
  const timer = setInterval(sample, 250);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { peakMiB: peak / 2 ** 20, javaPeakMiB: javaPeak === undefined ? undefined : javaPeak / 2 ** 20 };
    },
  };
}

/** DynamoDB Local's RSS in bytes (a child of this process on Linux), or undefined. */
function dynamoDbLocalRss(): number | undefined {
  try {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/);
    for (const pid of children) {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal')) continue;
      const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    }
  } catch {
    /* not Linux, or the process is gone */
  }
  return undefined;
}

interface Measured {
  runs: any[];
  ms: number;
  requests: number;
  byOperation: Record<string, number>;
  usage: AwsUsage;
}

/**
 * Starts one run per test at once and waits for every one to finish: the wall time from the first
 * POST /runs to the last run seen finished, and meanwhile the DynamoDB requests and what AWS bills.
 */
async function runToEnd(versionId: string, testIds: string[]): Promise<Measured> {
  let requests = 0;
  const byOperation: Record<string, number> = {};
  const tally = usageTally();
  const stops = [
    observeRequests((op) => {
      requests++;
      byOperation[op] = (byOperation[op] ?? 0) + 1;
    }),
    observeCapacity(tally.capacity),
    observeLocalUsage(tally.local),
  ];
  try {
    const started = Date.now();
    const created = await Promise.all(
      testIds.map((testId) => http('POST', '/runs', { versionId, testId, metricIds: ['met_non_empty_output'] })),
    );
    const finished = new Map<string, any>();
    let lastPrint = Date.now();
    let finishedAt = started;
    for (;;) {
      const open = created.filter((r) => !finished.has(r.id));
      const seen = await Promise.all(open.map((r) => http('GET', `/runs/${r.id}`)));
      for (const run of seen) {
        if (!['PENDING', 'RUNNING'].includes(run.status)) {
          finished.set(run.id, run);
          finishedAt = Date.now();
        }
      }
      if (finished.size === created.length) {
        return {
          runs: created.map((r) => finished.get(r.id)),
          ms: finishedAt - started,
          requests,
          byOperation,
          usage: tally.usage,
        };
      }
      if (Date.now() - lastPrint > 5000) {
        lastPrint = Date.now();
        console.log(`  ${seen.map((run) => `${run.status} ${JSON.stringify(run.progress)}`).join('; ')}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    for (const stop of stops) stop();
  }
}

const n = (x: number, digits = 0) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The measured workload's lines: its runs, its wall time, its requests, its AWS usage and cost. */
function report(m: Measured, cases: number) {
  for (const run of m.runs) {
    console.log(`  run ${run.status}: ${JSON.stringify(run.progress)}; non_empty_output = ${run.metrics[0]?.score}`);
  }
  const ideal = (cases * AGENT_MS) / CONCURRENCY;
  console.log(
    `  wall ${(m.ms / 1000).toFixed(1)} s, ideal ${(ideal / 1000).toFixed(1)} s (${n(cases)} × ${AGENT_MS} ms / ${CONCURRENCY}); ${(m.ms / cases).toFixed(2)} ms per case`,
  );
  console.log(
    `  DynamoDB requests meanwhile (progress polls included): ${(m.requests / cases).toFixed(2)} per case, by operation ${JSON.stringify(m.byOperation)}`,
  );
  const u = m.usage;
  const cost = awsCost(u);
  console.log(
    `  on AWS (us-east-1 list prices of bench/aws-prices.ts, taken ${AWS_PRICES.lambdaRequests.taken}; LLM excluded):`,
  );
  for (const line of cost.lines) {
    console.log(
      `    ${line.service.padEnd(11)} ${n(line.quantity, line.quantity % 1 ? 1 : 0).padStart(12)} ${line.unit.padEnd(28)} $${line.usd.toFixed(6)}`,
    );
  }
  console.log(
    `    total $${cost.total.toFixed(5)} for ${n(cases)} cases: $${((cost.total / cases) * 1000).toFixed(5)} per 1,000 cases`,
  );
  const handlers = Object.entries(u.lambda.byHandler).sort(([, a], [, b]) => b.gbSeconds - a.gbSeconds);
  console.log(
    `    Lambda by function (invocations × mean ms at MB): ${handlers
      .map(([h, r]) => `${h} ${n(r.invocations)} × ${(r.ms / r.invocations).toFixed(1)} ms at ${r.memoryMb}`)
      .join('; ')}`,
  );
  console.log(
    `    DynamoDB: ${n(u.dynamodb.readUnits / cases, 2)} RRU and ${n(u.dynamodb.writeUnits / cases, 2)} WRU per case as DynamoDB Local reported them (table and indexes)${
      u.dynamodb.failedRequests
        ? `; ${u.dynamodb.failedRequests} failed requests (${Object.entries(u.dynamodb.failures)
            .map(([k, v]) => `${v} ${k}`)
            .join(', ')}), ${n(u.dynamodb.estimatedWriteUnits, 1)} WRU of them estimated from their payloads`
        : ''
    }`,
  );
  console.log(
    `    SQS: ${n(u.sqs.messagesSent)} messages sent in ${n(u.sqs.sendRequests)} send, ${n(u.sqs.receiveRequests)} receive and ${n(u.sqs.deleteRequests)} delete requests; S3: ${u.s3.tier1} PUT/LIST, ${u.s3.tier2} GET, ${u.s3.free} DELETE`,
  );
  return { cost, ideal };
}

try {
  console.log(
    `${n(CASES)} single-turn cases, agent answers in ${AGENT_MS} ms, local concurrency ${CONCURRENCY}, no rate limit, one deterministic metric`,
  );
  const fast = await version(null, 'fast');
  // Every test first, so the measured runs follow one another with nothing in between.
  const creating = Date.now();
  const testIds: string[] = [];
  for (const [i, size] of PLAN.entries()) testIds.push(await test(fast.productId, size, `workload-${i + 1}`));
  console.log(
    `created the workload's ${PLAN.length === 1 ? 'test' : `${PLAN.length} tests`} in ${((Date.now() - creating) / 1000).toFixed(0)} s`,
  );
  let reference: Measured | undefined;
  if (WITH_REFERENCE) {
    // DynamoDB Local's JVM and V8 warm up on the first run in a process: a short run takes that
    // cost, so neither measured run carries it.
    console.log(`warm-up: ${WARMUP_CASES} cases, one run, not measured`);
    await runToEnd(fast.versionId, [await test(fast.productId, WARMUP_CASES, 'warm-up')]);
    const referenceTest = await test(fast.productId, REFERENCE_CASES, 'reference');
    console.log(`reference: ${n(REFERENCE_CASES)} cases, one run`);
    reference = await runToEnd(fast.versionId, [referenceTest]);
    report(reference, REFERENCE_CASES);
  }

  const runsLine =
    PLAN.length === 1
      ? 'one run'
      : `${PLAN.length} runs of ${PLAN.map((c) => n(c)).join(' + ')} (of ${PLAN.length} tests) started together, measured as one workload from the first POST /runs to the last run finished: a run executes at most ${n(MAX_RUN_CASES)} sessions`;
  console.log(`workload: ${n(CASES)} cases, ${runsLine}`);
  const memory = memorySampler();
  const workload = await runToEnd(fast.versionId, testIds);
  const { peakMiB, javaPeakMiB } = memory.stop();
  const { cost, ideal } = report(workload, CASES);
  console.log(
    `  peak RSS of this process (the local runtime, the agent, this script) while it ran: ${peakMiB.toFixed(0)} MiB${
      javaPeakMiB === undefined ? '' : `; DynamoDB Local's JVM (its own process): ${javaPeakMiB.toFixed(0)} MiB`
    }`,
  );
  const ratio = reference
    ? wallPerCaseRatio({ ms: workload.ms, cases: CASES }, { ms: reference.ms, cases: REFERENCE_CASES })
    : undefined;

  console.log(`rate limit: ${RATE_CASES} cases on a connection limited to ${RATE} requests per minute`);
  const limited = await version(RATE, 'limited');
  const limitedTest = await test(limited.productId, RATE_CASES, 'limited');
  const two = await runToEnd(limited.versionId, [limitedTest]);
  const times = arrivals
    .filter((a) => a.path === '/limited')
    .map((a) => a.at)
    .sort((a, b) => a - b);
  const spanMin = (times[times.length - 1]! - times[0]!) / 60_000;
  // n starts spaced 60/RATE s apart span (n − 1) intervals: that is the achieved rate.
  const achieved = (times.length - 1) / spanMin;
  let worstWindow = 0;
  for (let i = 0; i < times.length; i++)
    worstWindow = Math.max(worstWindow, times.filter((t) => t >= times[i]! && t < times[i]! + 60_000).length);
  console.log(
    `  run ${two.runs[0].status}: ${JSON.stringify(two.runs[0].progress)} in ${(two.ms / 1000).toFixed(1)} s`,
  );
  console.log(
    `  achieved ${achieved.toFixed(1)} requests/min against a limit of ${RATE}; busiest 60-second window held ${worstWindow}`,
  );

  const perCase = workload.requests / CASES;
  console.log('');
  console.log(
    `workload: ${n(CASES)} cases, ${PLAN.length === 1 ? 'one run' : `${PLAN.length} concurrent runs of ${PLAN.map((c) => n(c)).join(' + ')} (a run executes at most ${n(MAX_RUN_CASES)} sessions)`}`,
  );
  console.log(
    `goals: dynamodb requests per case ≤ 2.5 ${perCase <= 2.5 ? 'met' : `missed by ${(perCase - 2.5).toFixed(2)}`}${
      ratio === undefined
        ? ''
        : `; wall per case ≤ 1.3 × the 1,000-case run's ${ratio <= 1.3 ? 'met' : `missed by ${(ratio - 1.3).toFixed(2)}`}`
    }`,
  );
  console.log(`wall seconds = ${(workload.ms / 1000).toFixed(1)}`);
  console.log(`wall time / ideal = ${(workload.ms / ideal).toFixed(2)}`);
  console.log(`dynamodb requests per case = ${perCase.toFixed(2)}`);
  if (ratio !== undefined) console.log(`wall per case / 1000-case wall per case = ${ratio.toFixed(2)}`);
  console.log(`peak memory MiB = ${peakMiB.toFixed(0)}`);
  console.log(`aws cost per 1000 cases = $${((cost.total / CASES) * 1000).toFixed(4)}`);
  console.log(`achieved rate / rate limit = ${(achieved / RATE).toFixed(3)}`);
} finally {
  await runtime.stop();
  agent.close();
  agent.closeAllConnections();
}
