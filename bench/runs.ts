/**
 * `npm run bench:runs` (not part of `npm test`): how fast runs execute on the local runtime.
 * 1. Throughput: 1,000 single-turn cases against a local agent that answers in 50 ms, no rate
 *    limit. Prints the wall time from POST /runs to COMPLETED against the ideal
 *    (1,000 × 50 ms / concurrency) and their ratio (1.0 would be no overhead at all).
 * 2. Rate limit: a run on a connection limited to RATE per minute. Prints the achieved requests
 *    per minute (from the agent's own clock) against the limit, and their ratio (at most 1.0).
 * 3. DynamoDB requests per case: every request the document client sends while the first run
 *    executes (the fan-out, the steps, the finish, and this script's progress polls), counted by
 *    its own hook (`observeRequests`), divided by the cases.
 * Ends with four lines, from this one sitting: `wall seconds`, `wall time / ideal`,
 * `dynamodb requests per case`, `achieved rate / rate limit`.
 * Environment: BENCH_CASES (1000), RUN_LOCAL_CONCURRENCY (25), BENCH_RATE (600), BENCH_RATE_CASES (40).
 */
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from '../infra/local/runtime.js';
import { freePort } from '../infra/local/services.js';
import { benchClient } from './http.js';

const CASES = Number(process.env.BENCH_CASES ?? 1000);
const CONCURRENCY = Number(process.env.RUN_LOCAL_CONCURRENCY ?? 25);
const RATE = Number(process.env.BENCH_RATE ?? 600);
const RATE_CASES = Number(process.env.BENCH_RATE_CASES ?? 40);
const AGENT_MS = 50;
process.env.RUN_LOCAL_CONCURRENCY = String(CONCURRENCY);

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
const { observeRequests } = await import('../shared/db/client.js');

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

/** A version whose CONVERSATION connection calls the agent (optionally rate-limited), and a test of n cases. */
async function fixture(n: number, rateLimit: number | null, label: string) {
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
  const version = await http('POST', '/versions', {
    productId: product.id,
    name: 'v1',
    conversationEndpointConnectionId: conn.id,
  });
  // The first cases come from an uploaded CSV; the rest are added through POST /testCases (a large
  // import inside one request can outlast the local function timeout on a busy machine).
  const first = Math.min(n, 100);
  const test = await http('POST', '/tests', {
    productId: product.id,
    name: label,
    type: 'QUALITY',
    uri: await uploadCases(first, label),
  });
  const rest = Array.from({ length: n - first }, (_, i) => first + i);
  for (let i = 0; i < rest.length; i += 20) {
    await Promise.all(
      rest.slice(i, i + 20).map((k) =>
        http('POST', '/testCases', {
          testId: test.id,
          input: `${label} question ${k}`,
          expectedOutput: `${label} question ${k}`,
        }),
      ),
    );
  }
  return { version, test };
}

/** Runs the test to its end: the wall time from POST /runs to a finished run, and the DynamoDB requests meanwhile. */
async function runToEnd(
  versionId: string,
  testId: string,
): Promise<{ run: any; ms: number; requests: number; byOperation: Record<string, number> }> {
  let requests = 0;
  const byOperation: Record<string, number> = {};
  const stop = observeRequests((op) => {
    requests++;
    byOperation[op] = (byOperation[op] ?? 0) + 1;
  });
  try {
    const started = Date.now();
    const created = await http('POST', '/runs', { versionId, testId, metricIds: ['met_non_empty_output'] });
    let lastPrint = 0;
    for (;;) {
      const run = await http('GET', `/runs/${created.id}`);
      if (!['PENDING', 'RUNNING'].includes(run.status)) return { run, ms: Date.now() - started, requests, byOperation };
      if (Date.now() - lastPrint > 5000) {
        lastPrint = Date.now();
        console.log(`  ${run.status} ${JSON.stringify(run.progress)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    stop();
  }
}

try {
  console.log(
    `throughput: ${CASES} single-turn cases, agent answers in ${AGENT_MS} ms, local concurrency ${CONCURRENCY}, no rate limit`,
  );
  const fast = await fixture(CASES, null, 'fast');
  const one = await runToEnd(fast.version.id, fast.test.id);
  const ideal = (CASES * AGENT_MS) / CONCURRENCY;
  console.log(
    `  run ${one.run.status}: ${JSON.stringify(one.run.progress)}; non_empty_output = ${one.run.metrics[0]?.score}`,
  );
  console.log(
    `  wall ${(one.ms / 1000).toFixed(1)} s, ideal ${(ideal / 1000).toFixed(1)} s (${CASES} × ${AGENT_MS} ms / ${CONCURRENCY})`,
  );
  console.log(
    `  DynamoDB requests meanwhile, by operation (progress polls included): ${JSON.stringify(one.byOperation)}`,
  );

  console.log(`rate limit: ${RATE_CASES} cases on a connection limited to ${RATE} requests per minute`);
  const limited = await fixture(RATE_CASES, RATE, 'limited');
  const two = await runToEnd(limited.version.id, limited.test.id);
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
  console.log(`  run ${two.run.status}: ${JSON.stringify(two.run.progress)} in ${(two.ms / 1000).toFixed(1)} s`);
  console.log(
    `  achieved ${achieved.toFixed(1)} requests/min against a limit of ${RATE}; busiest 60-second window held ${worstWindow}`,
  );

  console.log('');
  console.log(`wall seconds = ${(one.ms / 1000).toFixed(1)}`);
  console.log(`wall time / ideal = ${(one.ms / ideal).toFixed(2)}`);
  console.log(`dynamodb requests per case = ${(one.requests / CASES).toFixed(1)}`);
  console.log(`achieved rate / rate limit = ${(achieved / RATE).toFixed(3)}`);
} finally {
  await runtime.stop();
  agent.close();
  agent.closeAllConnections();
}
