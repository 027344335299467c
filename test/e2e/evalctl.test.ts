import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { runScript, type CliRun } from '../support/raw-http.js';
import { e2eApi, expectStatus } from '../support/typed-api.js';

/**
 * evalctl (cli/evalctl.ts) against the e2e runtime, as a CI job runs it: the agent answers "good"
 * or "bad" as the test says, a deterministic metric scores 1 when the answer contains "good", so
 * a run after a "good" baseline regressed exactly when the agent went bad.
 */
const api = e2eApi();
const scratch = mkdtempSync(join(tmpdir(), 'evalctl-'));
let agent: TestAgentServer;
let mode: 'good' | 'bad' | 'down' = 'good';
let versionId: string;
let testId: string;
/** A test of the same cases whose specification links no metric: a run of it has nothing to score. */
let unscoredTestId: string;
let metricName: string;

function evalctl(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runScript('cli/evalctl.ts', [...args], {
    EVAL_API_URL: inject('serverUrl'),
    EVAL_API_KEY: inject('demoApiKey'),
    ...env,
  });
}

/** `run` with the test's version and test, polling fast. */
const runCommand = (...extra: string[]) =>
  evalctl(['run', '--version', versionId, '--test', testId, '--poll-ms', '200', ...extra]);

/** Exit 2: one line on stderr naming the problem, no stack trace, nothing on stdout. */
function expectUsageOrApiError(run: CliRun, pattern: RegExp) {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(pattern);
}

const attr = (tag: string, name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(tag)?.[1]);

beforeAll(async () => {
  agent = await startAgent((req, res) => {
    if (mode === 'down') return sendJson(res, 500, { error: 'down for maintenance' });
    sendJson(res, 200, { reply: `${mode} answer to ${req.json?.message}` });
  });
  const product = await expectStatus(
    api.POST('/products', { body: { name: 'evalctl bot', description: 'answers good or bad' } }),
    201,
  );
  const connection = await expectStatus(
    api.POST('/endpointConnections', {
      body: {
        productId: product.id,
        name: 'chat',
        url: `${agent.url}/chat`,
        inputTemplate: '{"message": "{{ input.user_message }}"}',
        outputMapping: { output: '$.reply' },
        type: 'CONVERSATION',
      },
    }),
    201,
  );
  const version = await expectStatus(
    api.POST('/versions', {
      body: { productId: product.id, name: 'evalctl v1', conversationEndpointConnectionId: connection.id },
    }),
    201,
  );
  metricName = `says good ${Date.now()}`;
  const metric = await expectStatus(
    api.POST('/metrics', {
      body: { name: metricName, source: 'DETERMINISTIC', check: { type: 'contains', value: 'good' } },
    }),
    201,
  );
  const spec = await expectStatus(
    api.POST('/specifications', { body: { productId: product.id, description: 'says good', type: 'CAPABILITY' } }),
    201,
  );
  await expectStatus(
    api.POST('/specifications/{id}/metrics', { params: { path: { id: spec.id } }, body: { metricIds: [metric.id] } }),
    200,
  );
  const csv = `input,expected_output\n${['one', 'two', 'three', 'four', 'five'].map((x) => `${x},x`).join('\n')}\n`;
  const presigned = await expectStatus(
    api.GET('/storage/generate-put-presigned-url', {
      params: { query: { fileName: 'cases.csv', contentType: 'text/csv' } },
    }),
    200,
  );
  expect((await fetch(presigned.url, { method: 'PUT', body: csv })).status).toBe(200);
  const test = await expectStatus(
    api.POST('/tests', {
      body: {
        productId: product.id,
        name: 'evalctl cases',
        type: 'QUALITY',
        specificationId: spec.id,
        uri: presigned.uri,
      },
    }),
    201,
  );
  expect(test.status).toBe('SUCCESS');
  const unscored = await expectStatus(
    api.POST('/tests', {
      body: { productId: product.id, name: 'evalctl unscored', type: 'QUALITY', uri: presigned.uri },
    }),
    201,
  );
  versionId = version.id;
  testId = test.id;
  unscoredTestId = unscored.id;
});
afterAll(async () => {
  await agent.close();
  rmSync(scratch, { recursive: true, force: true });
});

const testcases = (suite: string) =>
  [...suite.matchAll(/<testcase [^>]*?(?:\/>|>[\s\S]*?<\/testcase>)/g)].map((m) => m[0]);
/** The `<testsuite name="…">` element of the document, whole. */
const suiteOf = (xml: string, name: string) =>
  new RegExp(`<testsuite name="${name}"[^>]*(?:/>|>[\\s\\S]*?</testsuite>)`).exec(xml)?.[0] ?? '';

describe('evalctl against the local runtime', () => {
  let baselineId: string;
  let regressedId: string;
  let goodAgainId: string;

  it('run --json: follows the run to the end, prints only {run} on stdout, progress by 10% on stderr, exit 0', async () => {
    mode = 'good';
    const run = await runCommand('--json');
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out)).toEqual(['run']);
    expect(out.run).toMatchObject({ status: 'COMPLETED', progress: { total: 5, completed: 5 }, repetitions: 1 });
    expect(out.run.metrics[0]).toMatchObject({ name: metricName, score: 1, passRate: 1 });
    // Not a terminal: a line per 10% (at most eleven, and the final status), ending at 100%.
    const lines = run.stderr.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.at(-1)).toMatch(new RegExp(`^run ${out.run.id}: 100% \\(5/5 sessions, COMPLETED\\)$`));
    baselineId = out.run.id;
  });

  it('run --baseline --junit after the agent went bad: the comparison regressed, the JUnit file says so, exit 1', async () => {
    mode = 'bad';
    const file = join(scratch, 'regressed.xml');
    const run = await runCommand('--baseline', baselineId, '--junit', file, '--json');
    expect(run.code, run.stderr).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.comparison).toMatchObject({ baseRunId: baselineId, verdict: 'regressed' });
    expect(out.comparison.metrics[0]).toMatchObject({ name: metricName, n: 5, difference: -1, verdict: 'regressed' });
    regressedId = out.run.id;
    const xml = readFileSync(file, 'utf8');
    const suites = [...xml.matchAll(/<testsuite [^>]*>/g)].map((m) => m[0]);
    expect(suites).toHaveLength(3);
    // Every session a test case: all 5 completed (the agent answered, badly).
    expect(suites[0]).toContain('name="sessions"');
    expect([attr(suites[0]!, 'tests'), attr(suites[0]!, 'failures'), attr(suites[0]!, 'errors')]).toEqual([5, 0, 0]);
    expect(suites[1]).toContain(`name="${metricName}"`);
    expect([attr(suites[1]!, 'tests'), attr(suites[1]!, 'failures'), attr(suites[1]!, 'errors')]).toEqual([5, 5, 0]);
    expect(suites[2]).toContain('name="comparison"');
    expect([attr(suites[2]!, 'tests'), attr(suites[2]!, 'failures')]).toEqual([1, 1]);
    const root = /<testsuites [^>]*>/.exec(xml)![0];
    expect([attr(root, 'tests'), attr(root, 'failures'), attr(root, 'errors')]).toEqual([11, 6, 0]);
  });

  it('run with repetitions and the agent good again: a text report with pass^k and the comparison, exit 0', async () => {
    mode = 'good';
    const run = await runCommand('--baseline', baselineId, '--repetitions', '2', '--threshold', '0.9');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^run run_\w+ \(.*\): COMPLETED, 10 of 10 sessions completed, 0 failed; 2 repetitions, threshold 0.9$/m,
    );
    expect(run.stdout).toMatch(/pass\^2\s+pass@2/);
    expect(run.stdout).toContain('100.0%');
    expect(run.stdout).toMatch(
      new RegExp(`comparison of run_\\w+ with ${baselineId} \\(paired by test case\\): no_significant_change`),
    );
    // Nothing moved, and the report says so rather than leaving "no significant change" to be read as "fine".
    expect(run.stdout).toContain(`  ${metricName}: no significant change; no case's score moved (n = 5)`);
    goodAgainId = /^run (run_\w+) /m.exec(run.stdout)![1]!;
  });

  it('floors that hold: exit 0, each check printed', async () => {
    const run = await evalctl([
      'compare',
      goodAgainId,
      '--baseline',
      baselineId,
      '--min-score',
      `${metricName}=1`,
      '--min-pass-rate',
      '0.9',
      '--max-drop',
      '0',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('gates: held (3 checks)');
    expect(run.stdout).toContain(
      `held    ${metricName}: score 1.000 is at or above the floor 1 (--min-score ${metricName}=1)`,
    );
    expect(run.stdout).toContain(`held    ${metricName}: did not fall (+0.000) against ${baselineId}`);
  });

  it('a broken floor exits 1 and names the metric, the figure and the floor, though the run completed', async () => {
    mode = 'bad';
    const run = await runCommand('--min-score', `${metricName}=0.5`, '--json');
    expect(run.code, run.stderr).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.run.status).toBe('COMPLETED');
    const broken = `${metricName}: score 0.000 is below the floor 0.5 (--min-score ${metricName}=0.5)`;
    expect(out.gates).toEqual([
      {
        flag: '--min-score',
        metricId: out.run.metrics[0].metricId,
        metric: metricName,
        figure: 0,
        limit: 0.5,
        held: false,
        message: broken,
      },
    ]);
    // stdout is JSON only: the CI log reads why on stderr.
    expect(run.stderr).toContain(`evalctl: floor broken: ${broken}\n`);
    // The same floor on the text report, against the good baseline; and --max-drop catches the fall.
    const text = await evalctl(['compare', out.run.id, '--baseline', baselineId, '--max-drop', '0.2']);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(
      `BROKEN  ${metricName}: fell by 1.000 against ${baselineId} (1.000 → 0.000 over 5 paired cases), more than the 0.2 allowed (--max-drop 0.2)`,
    );
  });

  it('compare: exit 1 for the regressed run, 0 the other way round; --json prints {run, comparison}', async () => {
    const worse = await evalctl(['compare', regressedId, '--baseline', baselineId, '--json']);
    expect(worse.code, worse.stderr).toBe(1);
    expect(worse.stderr).toBe('');
    expect(JSON.parse(worse.stdout)).toMatchObject({
      run: { id: regressedId },
      comparison: { runId: regressedId, verdict: 'regressed' },
    });
    const better = await evalctl(['compare', baselineId, '--baseline', regressedId]);
    expect(better.code, better.stderr).toBe(0);
    expect(better.stdout).toContain(': improved');
  });

  it('a run that FAILED (the agent is down) exits 1; its JUnit file has one error per session and a run case saying why', async () => {
    mode = 'down';
    const file = join(scratch, 'failed.xml');
    const run = await runCommand('--json', '--junit', file);
    expect(run.code, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout).run.status).toBe('FAILED');
    const xml = readFileSync(file, 'utf8');
    const root = /<testsuites [^>]*>/.exec(xml)![0];
    // Never tests="0": 5 sessions in error, and the run's own case.
    expect([attr(root, 'tests'), attr(root, 'failures'), attr(root, 'errors')]).toEqual([6, 0, 6]);
    const sessions = suiteOf(xml, 'sessions');
    expect([attr(sessions, 'tests'), attr(sessions, 'errors')]).toEqual([5, 5]);
    const cases = testcases(sessions);
    expect(cases).toHaveLength(5);
    for (const c of cases)
      expect(c).toMatch(/<error message="session FAILED: CONVERSATION turn 1 failed: [^"]*down for maintenance/);
    const runCase = testcases(suiteOf(xml, 'run'));
    expect(runCase).toHaveLength(1);
    expect(runCase[0]).toContain('<testcase classname="run" name="run">');
    expect(runCase[0]).toMatch(/<error message="run FAILED: none of its 5 sessions completed \(5 failed; 5 of them: /);
  });

  it('finds the local runtime through DATA_DIR when neither EVAL_API_URL nor EVAL_API_KEY is set, and says so', async () => {
    const local = { EVAL_API_URL: undefined, EVAL_API_KEY: undefined, DATA_DIR: inject('dataDir') };
    const run = await evalctl(['compare', baselineId, '--baseline', regressedId, '--json'], local);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).comparison.verdict).toBe('improved');
    expect(run.stderr).toBe(
      `evalctl: EVAL_API_URL is not set: using the local runtime on ${inject('serverUrl')} (from ${join(inject('dataDir'), 'local-env.json')}) with its demo key\n`,
    );
    // No runtime recorded there: exit 2, saying what to set or start.
    expectUsageOrApiError(
      await evalctl(['compare', baselineId, '--baseline', regressedId], { ...local, DATA_DIR: scratch }),
      /^evalctl: no API URL: set EVAL_API_URL and EVAL_API_KEY \(or pass --api-url, --api-key\), or start the local runtime with `npm start` \(no local runtime is recorded in .*local-env\.json\)$/,
    );
  });

  it('usage and API errors exit 2 with one line on stderr', async () => {
    expectUsageOrApiError(
      await evalctl(['run', '--test', testId]),
      /^evalctl: required option '--version <id>' not specified/,
    );
    expectUsageOrApiError(
      await runCommand('--repetitions', '11'),
      /^evalctl: option '--repetitions <k>' argument '11' is invalid\. must be a whole number from 1 to 10/,
    );
    expectUsageOrApiError(await evalctl(['launch']), /^evalctl: unknown command 'launch'/);
    expectUsageOrApiError(await evalctl([]), /^evalctl: missing command: run or compare/);
    expectUsageOrApiError(
      await evalctl(['compare', baselineId, '--baseline', regressedId], { EVAL_API_KEY: undefined }),
      /^evalctl: no API key: set EVAL_API_KEY or pass --api-key$/,
    );
    // The API's fields named by the flags that set them.
    expectUsageOrApiError(
      await evalctl(['run', '--version', 'ver_nope', '--test', testId]),
      /^evalctl: POST \/runs answered 400: --version ver_nope does not name an existing version$/,
    );
    expectUsageOrApiError(
      await evalctl(['compare', baselineId, '--baseline', 'run_nope']),
      /^evalctl: GET \/runs\/run_\w+\/comparison answered 404: --baseline: run run_nope not found$/,
    );
    expectUsageOrApiError(
      await evalctl(['run', '--version', versionId, '--test', unscoredTestId]),
      /^evalctl: POST \/runs answered 400: nothing to score: pass --metric or link metrics to the test's specification \(test test_\w+ has no specification with linked metrics\)$/,
    );
    // Floors: a malformed value names the flag; --max-drop needs a baseline; a metric the run lacks is named.
    expectUsageOrApiError(
      await runCommand('--min-score', '0.5'),
      /^evalctl: option '--min-score <metric>=<x>' argument '0\.5' is invalid\. must be <metric>=<x>: /,
    );
    expectUsageOrApiError(
      await runCommand('--min-pass-rate', '80%'),
      /^evalctl: option '--min-pass-rate <\[metric=\]x>' argument '80%' is invalid\. must be <x> or <metric>=<x> with x a number from 0 to 1/,
    );
    expectUsageOrApiError(await runCommand('--max-drop', '0.1'), /^evalctl: --max-drop needs --baseline: /);
    expectUsageOrApiError(
      await evalctl(['compare', baselineId, '--baseline', regressedId, '--min-score', 'says goo=0.5']),
      new RegExp(
        `^evalctl: --min-score: run ${baselineId} has no metric named "says goo" \\(its metrics: ${metricName}\\)$`,
      ),
    );
    expectUsageOrApiError(
      await evalctl(['compare', baselineId, '--baseline', regressedId], { EVAL_API_KEY: 'evk_wrong' }),
      /^evalctl: GET \/runs\/run_\w+ answered 401: missing or invalid API key$/,
    );
    expectUsageOrApiError(
      await evalctl(['compare', baselineId, '--baseline', regressedId], { EVAL_API_URL: 'http://127.0.0.1:9' }),
      /^evalctl: cannot reach http:\/\/127\.0\.0\.1:9/,
    );
  });
});
