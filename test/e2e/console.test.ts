import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startAgent, sendJson, type TestAgentServer } from '../support/agent-server.js';
import { httpWithKey, launchChromium, screenshots, waitInPage } from '../support/browser.js';
import { runScript } from '../support/raw-http.js';
import type { MetricComparison } from '../../console/src/view-models.js';
import { forestLayout, forestPlot } from '../../console/src/view-models.js';

/** The console in a real Chromium against the e2e local server (which built it on start). */
const base = inject('serverUrl');
const key = inject('demoApiKey');
const dataDir = inject('dataDir');
const http = httpWithKey(base, key);

let browser: Browser;
let page: Page;
/** Uncaught errors of the console's script: none is expected on any page. */
const pageErrors: string[] = [];
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterEach(() => {
  expect(pageErrors).toEqual([]);
});
afterAll(async () => {
  await browser?.close();
});

async function poll<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A fresh tab with the key typed into the console's form (keyboard only). */
async function signedIn(hash: string, apiKey = key): Promise<Page> {
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  p.on('pageerror', (error) => pageErrors.push(error.message));
  await p.goto(`${base}/${hash}`);
  await p.getByLabel('API key').focus();
  await p.keyboard.type(apiKey);
  await p.keyboard.press('Enter');
  return p;
}

describe('the console in Chromium', () => {
  it('serves /, its assets and /console-config.json, while other unknown paths keep their 404 JSON', async () => {
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await index.text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await (await fetch(`${base}/console-config.json`)).json()).toEqual({ apiBaseUrl: base });
    const unknown = await fetch(`${base}/monitors-page`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Not Found', message: expect.any(String) });
    // an encoded `../` never leaves console/dist (fetch would resolve a plain one before sending)
    for (const path of ['/..%2Fpackage.json', '/assets/..%2F..%2F..%2Fpackage.json', '/%2e%2e%2fpackage.json']) {
      const escaped = await fetch(`${base}${path}`);
      expect(escaped.status, path).toBe(404);
      expect(await escaped.json()).toEqual({ error: 'Not Found', message: expect.any(String) });
    }
  });

  it('shows the 401 state for a wrong key and lets the user type another', async () => {
    page = await signedIn('#/monitors', 'evk_000000000000000000000000000000000000000');
    await page.locator('[data-state="unauthorized"]').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Wrong API key');
    expect(await page.getByRole('alert').textContent()).toMatch(/401 Unauthorized/);
    expect(await page.evaluate(() => sessionStorage.getItem('evp.apiKey'))).toBeNull();
    await screenshots(page, 'wrong-key');
    // the form is there again: a right key opens the page asked for
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('h1', { hasText: 'Monitors' }).waitFor();
    await page.close();
  });

  it("draws one line and one band per family matching the results route, with markers, worst metric, spend, open alerts, alert rules and each scored session's scores", async () => {
    const product = (await http('POST', '/products', { name: 'console bot' })).body;
    const version = (await http('POST', '/versions', { productId: product.id, name: 'v1' })).body;
    const judged = {
      name: 'console helpfulness',
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: 'Is the answer helpful?',
      evaluatorModelName: 'claude-3-5-haiku',
    };
    const root = await http('POST', '/metrics', judged);
    expect(root.status).toBe(201);
    const monitor = (
      await http('POST', '/monitors', {
        productId: product.id,
        name: 'console monitor',
        metricGroupIds: ['mgrp_is_json', root.body.metricGroupId],
        samplingPercentage: 100,
        monthlyCreditCap: 500,
      })
    ).body;
    expect(monitor.id).toMatch(/^mon_/);
    // 32 scored sessions (an interval from 30), half answering JSON; one more left open (waiting).
    const ids: string[] = [];
    for (let i = 0; i < 32; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, j) => {
          const n = i + j;
          const s = (await http('POST', '/sessions', { versionId: version.id })).body;
          expect(
            (
              await http('POST', '/inferenceResults', {
                sessionId: s.id,
                input: `question ${n}`,
                output: n % 2 ? `{"answer": ${n}}` : `answer ${n}`,
              })
            ).status,
          ).toBe(201);
          expect((await http('PATCH', `/sessions/${s.id}`, { status: 'COMPLETED' })).status).toBe(200);
          ids.push(s.id);
        }),
      );
    }
    const open = (await http('POST', '/sessions', { versionId: version.id })).body;
    await http('POST', '/inferenceResults', { sessionId: open.id, input: 'still talking', output: 'yes?' });
    await poll(
      'monitor scores',
      async () => (await http('GET', `/monitors/${monitor.id}/results?days=7`)).body,
      (r) => r.metrics.every((m: { headline: { scoredSessions: number } }) => m.headline.scoredSessions === 32),
    );
    // two alert rules: is_json (0.5 over 32 sessions) below 0.9 opens an alert; below 0 never does
    const firing = await http('POST', `/monitors/${monitor.id}/alertRules`, {
      metricGroupId: 'mgrp_is_json',
      window: '1h',
      below: 0.9,
      minSessions: 5,
    });
    expect(firing.status).toBe(201);
    const quiet = await http('POST', `/monitors/${monitor.id}/alertRules`, {
      metricGroupId: root.body.metricGroupId,
      window: '24h',
      below: 0,
      minSessions: 1,
    });
    expect(quiet.status).toBe(201);
    const [alert] = await poll(
      'open alert',
      async () => (await http('GET', `/monitors/${monitor.id}/alerts?statuses=OPEN`)).body,
      (list: any[]) => list.length === 1,
    );
    expect(alert).toMatchObject({ ruleId: firing.body.id, metricGroupId: 'mgrp_is_json' });
    // a new revision of the judged family and a sampling change: one marker each
    expect((await http('POST', '/metrics', { ...judged, parentMetricId: root.body.id })).status).toBe(201);
    expect((await http('PATCH', `/monitors/${monitor.id}`, { samplingPercentage: 80 })).status).toBe(200);
    const results = (await http('GET', `/monitors/${monitor.id}/results?days=7`)).body;
    expect(results.markers.metricRevisions).toHaveLength(1);
    expect(results.markers.samplingChanges).toHaveLength(1);
    expect(results.worstMetric.metricGroupId).toBe('mgrp_is_json');

    page = await signedIn('#/monitors');
    const row = page.locator('[data-testid="monitors"] tr', { hasText: 'console monitor' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/ACTIVE/);
    await row.locator('.spend-text').waitFor();
    expect(await row.locator('.spend-text').textContent()).toMatch(/^\d+ of 500 credits/);
    await screenshots(page, 'monitors');

    await row.getByRole('link', { name: 'console monitor' }).click();
    await page.locator('[data-testid="chart"] canvas').first().waitFor();
    expect(await page.locator('h1').textContent()).toBe('console monitor');
    const families = page.locator('[data-testid="family"]');
    expect(await families.count()).toBe(results.metrics.length);
    for (const family of results.metrics) {
      // What uPlot was given and drew, read from the instance the console keeps on the chart element.
      const drawn = await page
        .locator(`[data-testid="chart"][data-metric-group-id="${family.metricGroupId}"]`)
        .evaluate((el: any) => {
          const u = el.__uplot as {
            series: { label?: string }[];
            bands: { series: number[] }[];
            data: (number | null)[][];
          };
          return {
            lines: u.series.slice(1).filter((s) => s.label === 'score').length,
            bands: u.bands.map((b) => b.series.map((i) => u.series[i]!.label)),
            data: u.data,
            markers: Number(el.dataset.markers),
          };
        });
      expect(drawn.lines).toBe(1);
      expect(drawn.bands).toEqual([['95% upper', '95% lower']]);
      const buckets = family.buckets as {
        bucket: string;
        score: number | null;
        collectingData: boolean;
        confidenceInterval: { lower: number; upper: number } | null;
      }[];
      expect(drawn.data[0]).toEqual(buckets.map((b) => Date.parse(b.bucket) / 1000));
      expect(drawn.data[1]).toEqual(buckets.map((b) => b.score));
      expect(drawn.data[2]).toEqual(buckets.map((b) => b.confidenceInterval?.upper ?? null));
      expect(drawn.data[3]).toEqual(buckets.map((b) => b.confidenceInterval?.lower ?? null));
      expect(drawn.data[4]).toEqual(buckets.map((b) => (b.collectingData && b.score !== null ? b.score : null)));
      // today is scored (32 sessions: a band), the other days are empty
      expect(buckets.at(-1)!.confidenceInterval).not.toBeNull();
      expect(drawn.markers).toBe(family.metricGroupId === root.body.metricGroupId ? 2 : 1);
    }
    const markers = await page.locator('[data-testid="markers"] li').allTextContents();
    expect(markers).toHaveLength(2);
    expect(markers.join('\n')).toMatch(/New revision of console helpfulness/);
    expect(markers.join('\n')).toMatch(/Sampling set to 80%/);
    const worst = await page.locator('[data-testid="worst-metric"]').textContent();
    expect(worst).toContain(results.worstMetric.name);
    expect(worst).toContain(results.worstMetric.score.toFixed(3));
    expect(await page.locator('[data-testid="scored-sessions"] tbody tr').count()).toBe(results.sessions.scored.length);
    expect(await page.locator('[data-testid="waiting-sessions"] tbody tr').allTextContents()).toEqual([
      expect.stringContaining(open.id),
    ]);
    expect(await page.locator('.facts').textContent()).toMatch(/of 500 credits/);
    // open alerts and alert rules, by family name
    const jsonName = results.metrics.find((m: { metricGroupId: string }) => m.metricGroupId === 'mgrp_is_json').name;
    const alertRows = await page.locator('[data-testid="open-alerts"] tbody tr').allTextContents();
    expect(alertRows).toHaveLength(1);
    expect(alertRows[0]).toContain(jsonName);
    expect(alertRows[0]).toContain(alert.score.toFixed(3));
    expect(alertRows[0]).toContain('score below 0.900 over 1h, from 5 sessions');
    const ruleRows = await page.locator('[data-testid="alert-rules"] tbody tr').allTextContents();
    expect(ruleRows).toHaveLength(2);
    expect(ruleRows.find((r) => r.startsWith(jsonName))).toMatch(/score below 0\.900 over 1h.*OPEN/);
    expect(ruleRows.find((r) => r.startsWith('console helpfulness'))).toMatch(
      /score below 0\.000 over 24h.*no open alert/,
    );
    // each scored session's scores, one column per family, as the evaluations have them
    const scoredTable = page.locator('[data-testid="scored-sessions"]');
    expect(await scoredTable.locator('thead th').allTextContents()).toEqual([
      'Session',
      'Scored at',
      'Turns when scored',
      'First user turn',
      ...results.metrics.map((m: { name: string }) => m.name),
    ]);
    for (const sessionId of [ids[0]!, ids[1]!]) {
      const own = (await http('GET', `/evaluations?sessionIds=${sessionId}`)).body.filter(
        (e: { monitorId: string }) => e.monitorId === monitor.id,
      );
      const cells = await scoredTable
        .locator(`tr[data-session-id="${sessionId}"] td`)
        .evaluateAll((tds) => tds.map((td) => td.querySelector('summary')?.textContent ?? td.textContent));
      results.metrics.forEach((m: { metricGroupId: string }, k: number) => {
        const e = own.find((x: { metricGroupId: string }) => x.metricGroupId === m.metricGroupId);
        expect(cells[4 + k]).toBe(e.score.toFixed(3));
      });
    }
    await screenshots(page, 'monitor');
    // the window links keep the page keyboard-reachable and change the days asked for
    await page.getByRole('link', { name: '30 days' }).click();
    await page.locator('h2', { hasText: 'last 30 days' }).waitFor();
    expect(await page.locator('[data-testid="buckets"]').first().locator('tbody tr').count()).toBe(30);
    await page.close();
  }, 120_000);

  it("shows another organization's monitor as the 403 state", async () => {
    const run = await runScript(
      'infra/local/admin.ts',
      ['create-org', '--name', 'Other console org', '--plan', 'PRO'],
      { TABLE_NAME: undefined, DATA_DIR: dataDir },
    );
    expect(run.code).toBe(0);
    const theirKey = /api key \(MEMBER, shown once\): (\S+)/.exec(run.stdout)![1]!;
    const theirs = httpWithKey(base, theirKey);
    const product = (await theirs('POST', '/products', { name: 'their bot' })).body;
    const monitor = (
      await theirs('POST', '/monitors', {
        productId: product.id,
        name: 'their monitor',
        metricGroupIds: ['mgrp_is_json'],
        samplingPercentage: 10,
      })
    ).body;
    expect((await http('GET', `/monitors/${monitor.id}/results`)).status).toBe(403);
    page = await signedIn(`#/monitors/${monitor.id}`);
    await page.locator('[data-state="forbidden"]').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Not in your organization');
    await screenshots(page, 'other-organization');
    await page.goto(`${base}/#/sessions/sess_00000000000000000000000000`);
    await page.locator('[data-state="not-found"]').waitFor();
    await page.close();
  });

  describe('runs', () => {
    let agent: TestAgentServer;
    /** Inputs the agent answers wrongly (the cases that then do not pass text_similarity). */
    let wrong = new Set<string>();
    // The agent holds its answers until the test has seen the run running (no race with the page).
    let answer: () => void = () => undefined;
    const answering = new Promise<void>((resolve) => {
      answer = resolve;
    });
    beforeAll(async () => {
      agent = await startAgent(async (req, res) => {
        await answering;
        const message: string = req.json?.message ?? '';
        sendJson(res, 200, { reply: wrong.has(message) ? 'I cannot help with that request at all.' : message });
      });
    });
    afterAll(async () => {
      answer();
      await agent.close();
    });

    /** A product, its version calling the loopback agent, and a test of six cases `hello i` expecting `hello i`. */
    async function runFixture(name: string) {
      const product = (await http('POST', '/products', { name: `${name} bot` })).body;
      const conversation = (
        await http('POST', '/endpointConnections', {
          productId: product.id,
          name: 'echo',
          url: `${agent.url}/chat`,
          inputTemplate: '{"message": "{{ input.user_message }}"}',
          outputMapping: { output: '$.reply' },
          type: 'CONVERSATION',
          rateLimit: 120,
          // Its first calls wait for the page: the longest timeout a connection may have.
          timeout: 120,
        })
      ).body;
      const version = (
        await http('POST', '/versions', {
          productId: product.id,
          name: 'v1',
          conversationEndpointConnectionId: conversation.id,
        })
      ).body;
      const presigned = (
        await http('GET', '/storage/generate-put-presigned-url?fileName=cases.csv&contentType=text/csv')
      ).body;
      const csv = ['input,expected_output', ...Array.from({ length: 6 }, (_, i) => `hello ${i},hello ${i}`)].join('\n');
      expect(
        (await fetch(presigned.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } })).status,
      ).toBe(200);
      const test = (
        await http('POST', '/tests', {
          productId: product.id,
          name: `${name} cases`,
          type: 'QUALITY',
          uri: presigned.uri,
        })
      ).body;
      expect(test).toMatchObject({ status: 'SUCCESS', testCaseCount: 6 });
      return { product, version, test };
    }

    async function startRun(versionId: string, testId: string, name: string): Promise<string> {
      const created = await http('POST', '/runs', {
        versionId,
        testId,
        name,
        metricIds: ['met_non_empty_output', 'met_text_similarity'],
      });
      expect(created.status).toBe(201);
      return created.body.id;
    }

    const completed = (id: string) =>
      poll(
        `run ${id}`,
        async () => (await http('GET', `/runs/${id}`)).body,
        (r) => r.status === 'COMPLETED',
        60_000,
      );

    it('shows names, progress moving to COMPLETED, per-metric scores and the results with reasons, filterable to the cases that did not pass', async () => {
      wrong = new Set(['hello 4', 'hello 5']);
      const { product, version, test } = await runFixture('console run');
      const runId = await startRun(version.id, test.id, 'console run');

      page = await signedIn(`#/runs/${runId}`);
      const progress = page.locator('[data-testid="progress"] progress');
      await progress.waitFor();
      const first = Number(await progress.getAttribute('value'));
      expect(first).toBeLessThan(1);
      expect(await page.locator('[data-testid="compare"]').textContent()).toMatch(/once this run has finished/);
      await screenshots(page, 'run-running');
      answer();
      await page.locator('[data-testid="run-facts"] .badge', { hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
      expect(Number(await progress.getAttribute('value'))).toBe(1);
      expect(await page.locator('[data-testid="progress"]').textContent()).toMatch(/6 of 6 finished — 6 completed/);
      // names, not ids
      const facts = await page.locator('[data-testid="run-facts"]').textContent();
      expect(facts).toContain('console run bot');
      expect(facts).toContain('v1');
      expect(facts).toContain('console run cases');
      expect(facts).toContain('0.500'); // the threshold: the run has none yet, so 0.5
      for (const id of [product.id, version.id, test.id]) expect(facts).not.toContain(id);
      const run = (await http('GET', `/runs/${runId}`)).body;
      const metricRows = await page.locator('[data-testid="run-metrics"] tbody tr').allTextContents();
      expect(metricRows).toHaveLength(run.metrics.length);
      for (const m of run.metrics) expect(metricRows.find((r) => r.startsWith(m.name))).toContain(m.score.toFixed(3));
      // the only finished run of its test: nothing to compare with yet
      await page.locator('[data-testid="compare"] [data-state="empty"]').waitFor();

      // results: one row per session, with the case's input, the agent's output, the expected output and each metric's score
      const results = page.locator('[data-testid="run-results"]');
      await results.locator('tbody tr').nth(5).waitFor();
      const headers = await results.locator('thead th').allTextContents();
      expect(headers).toEqual([
        'Case',
        'Input',
        "Agent's output",
        'Expected output',
        ...run.metrics.map((m: { name: string }) => m.name),
      ]);
      const sessions = (await http('GET', `/sessions?runIds=${runId}&limit=100`)).body as {
        id: string;
        testCaseId: string;
      }[];
      expect(sessions).toHaveLength(6);
      const evaluations = (
        await http('GET', `/evaluations?sessionIds=${sessions.map((s) => s.id).join(',')}&limit=100`)
      ).body as { sessionId: string; metricId: string; score: number; reason: string; status: string }[];
      expect(evaluations).toHaveLength(12);
      const similarity = run.metrics.findIndex((m: { metricId: string }) => m.metricId === 'met_text_similarity');
      const rows = await results.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          session: tr.getAttribute('data-session-id'),
          passed: tr.getAttribute('data-passed'),
          cells: [...tr.querySelectorAll('td')].map((td) => td.querySelector('summary')?.textContent ?? td.textContent),
        })),
      );
      expect(rows).toHaveLength(6);
      for (const row of rows) {
        const [, input, output, expected] = row.cells;
        const i = Number(/hello (\d)/.exec(input!)![1]);
        expect(input).toBe(`hello ${i}`);
        // the CSV's rows count from 1; the link opens the session; a case that did not pass says which metric
        expect(row.cells[0]).toMatch(new RegExp(`^Case ${i + 1}($|Did not pass: )`));
        expect(expected).toBe(`hello ${i}`);
        expect(output).toBe(i >= 4 ? 'I cannot help with that request at all.' : `hello ${i}`);
        const own = evaluations.filter((e) => e.sessionId === row.session);
        run.metrics.forEach((m: { metricId: string }, k: number) => {
          const e = own.find((x) => x.metricId === m.metricId)!;
          expect(row.cells[4 + k]).toContain(e.score.toFixed(3));
        });
        const failed = own.some((e) => e.status === 'SUCCESS' && e.score < 0.5);
        expect(failed).toBe(i >= 4);
        expect(row.passed).toBe(String(!failed));
        if (failed) expect(row.cells[4 + similarity]).toContain('did not pass');
        if (failed) expect(row.cells[0]).toContain(`Did not pass: ${run.metrics[similarity].name}`);
      }
      await screenshots(page, 'run');

      // a score's reason on demand: the disclosure opens with the keyboard
      const firstRow = results.locator('tbody tr').first();
      const score = firstRow.locator('[data-testid="score"]').nth(similarity);
      const reason = score.locator('[data-testid="reason"]');
      expect(await reason.isVisible()).toBe(false);
      await score.locator('summary').focus();
      await page.keyboard.press('Enter');
      await reason.waitFor();
      const firstSession = await firstRow.getAttribute('data-session-id');
      expect(await reason.textContent()).toBe(
        evaluations.find((e) => e.sessionId === firstSession && e.metricId === 'met_text_similarity')!.reason,
      );

      // only the cases that did not pass
      await page.getByRole('link', { name: 'Cases that did not pass' }).click();
      await page.locator('[data-testid="run-results"] caption', { hasText: 'did not pass' }).waitFor();
      const failing = await page
        .locator('[data-testid="run-results"] tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [tr.getAttribute('data-passed'), tr.querySelectorAll('td')[1]!.textContent]),
        );
      expect(failing.sort()).toEqual([
        ['false', 'hello 4'],
        ['false', 'hello 5'],
      ]);
      expect(await page.getByRole('link', { name: 'Cases that did not pass' }).getAttribute('aria-current')).toBe(
        'page',
      );
      await screenshots(page, 'run-not-passed');

      await page.goto(`${base}/#/runs`);
      await page.locator('[data-testid="runs"] tr', { hasText: 'console run' }).first().waitFor();
      await screenshots(page, 'runs');

      await page.goto(`${base}/#/runs/${runId}`);
      await page.locator('[data-testid="run-results"] tbody tr').first().getByRole('link').click();
      await page.locator('[data-testid="turns"]').waitFor();
      expect(await page.locator('[data-testid="turns"]').textContent()).toMatch(/hello \d/);
      await page.locator('[data-testid="evaluations"]').waitFor();
      // the session's version and run by name too
      const sessionFacts = await page.locator('.facts').textContent();
      expect(sessionFacts).toMatch(/Versionv1/);
      expect(await page.locator('.facts').getByRole('link', { name: 'console run' }).getAttribute('href')).toBe(
        `#/runs/${runId}`,
      );
      expect(sessionFacts).not.toContain(version.id);
      await page.close();
    }, 120_000);

    it('compares two finished runs of the same test: a forest plot around zero, verdicts, n, detectable effect, and the cases that moved most side by side', async () => {
      const { version, test } = await runFixture('console compare');
      wrong = new Set();
      const baseId = await startRun(version.id, test.id, 'baseline run');
      await completed(baseId);
      wrong = new Set(['hello 1', 'hello 2']);
      const runId = await startRun(version.id, test.id, 'candidate run');
      const run = await completed(runId);
      const sessionsOf = async (id: string) =>
        new Map(
          ((await http('GET', `/sessions?runIds=${id}&limit=100`)).body as { id: string; testCaseId: string }[]).map(
            (s) => [s.testCaseId, s.id],
          ),
        );
      const [baseSessions, runSessions] = await Promise.all([sessionsOf(baseId), sessionsOf(runId)]);
      const cases = (await http('GET', `/testCases?testIds=${test.id}&limit=100`)).body as {
        id: string;
        input: string;
      }[];
      const caseOf = (input: string) => cases.find((c) => c.input === input)!.id;
      const name = (metricId: string) => run.metrics.find((m: { metricId: string }) => m.metricId === metricId).name;

      // The comparison routes are not in this server yet (another engineer builds them): the browser's
      // two requests to them are intercepted with page.route() and answered with this fixed JSON, in the
      // routes' contract. Everything else (the runs, their sessions and turns) comes from the real server.
      const comparison = {
        runId,
        baseRunId: baseId,
        pairedBy: 'testCaseId',
        verdict: 'regressed',
        metrics: [
          {
            metricId: 'met_text_similarity',
            name: name('met_text_similarity'),
            n: 6,
            onlyInBase: 0,
            onlyInRun: 0,
            baseScore: 1,
            score: 0.7,
            difference: -0.3,
            standardError: 0.12,
            confidenceInterval: [-0.54, -0.06],
            pValue: 0.012,
            adjustedPValue: 0.024,
            verdict: 'regressed',
            minimumDetectableEffect: 0.25,
          },
          {
            metricId: 'met_non_empty_output',
            name: name('met_non_empty_output'),
            n: 6,
            onlyInBase: 0,
            onlyInRun: 0,
            baseScore: 1,
            score: 1,
            difference: 0,
            standardError: 0.05,
            confidenceInterval: [-0.1, 0.1],
            pValue: 1,
            adjustedPValue: 1,
            verdict: 'no_significant_change',
            minimumDetectableEffect: 0.12,
          },
        ],
      };
      const movedCase = (input: string, difference: number) => ({
        testCaseId: caseOf(input),
        metricId: 'met_text_similarity',
        metricName: name('met_text_similarity'),
        input,
        baseScore: 1,
        score: 1 + difference,
        difference,
        baseSessionIds: [baseSessions.get(caseOf(input))],
        sessionIds: [runSessions.get(caseOf(input))],
      });
      const regressed = [movedCase('hello 2', -0.8), movedCase('hello 1', -0.6)];
      const asked: URL[] = [];
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.route(
        (url) => url.pathname.startsWith(`/runs/${runId}/comparison`),
        async (route) => {
          const url = new URL(route.request().url());
          asked.push(url);
          expect(route.request().headers().authorization).toBe(`Bearer ${key}`);
          if (url.pathname === `/runs/${runId}/comparison`)
            return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(comparison) });
          const changed = url.searchParams.get('changed');
          const body = changed === 'regressed' ? regressed : [];
          return route.fulfill({
            status: 200,
            contentType: 'application/json',
            headers: { 'X-Total-Count': String(body.length) },
            body: JSON.stringify(body),
          });
        },
      );
      await page.goto(`${base}/#/runs/${runId}`);
      await page.getByLabel('API key').fill(key);
      await page.keyboard.press('Enter');

      // "compare with": the other finished runs of the same test (not this one)
      const choice = page.getByLabel('Compare with');
      await choice.waitFor();
      const options = await choice
        .locator('option')
        .evaluateAll((os) => os.map((o) => [(o as any).value, o.textContent]));
      expect(options).toEqual([[baseId, expect.stringContaining('baseline run')]]);
      await choice.selectOption(baseId);
      await page.getByRole('button', { name: 'Compare' }).click();
      const plot = page.locator('[data-testid="forest-plot"]');
      await plot.waitFor();
      expect(await page.locator('h1').textContent()).toBe('candidate run compared with baseline run');
      expect(new URL(page.url()).hash).toBe(`#/runs/${runId}/comparison?base=${baseId}`);
      expect(asked.map((u) => [u.pathname, Object.fromEntries(u.searchParams)])).toEqual(
        expect.arrayContaining([
          [`/runs/${runId}/comparison`, { baseRunId: baseId }],
          [
            `/runs/${runId}/comparison/cases`,
            { baseRunId: baseId, changed: 'regressed', sort: 'difference:asc', limit: '10' },
          ],
          [
            `/runs/${runId}/comparison/cases`,
            { baseRunId: baseId, changed: 'improved', sort: 'difference:desc', limit: '10' },
          ],
        ]),
      );
      expect(await page.locator('[data-testid="comparison-facts"]').textContent()).toMatch(/Regressed/);
      expect(await page.locator('[data-testid="comparison-facts"]').textContent()).toContain('console compare cases');

      // the plot as drawn: each dot at its difference, each line its interval, around the zero line
      const drawn = await plot.evaluate((svg) => {
        const num = (el: any, a: string) => (el ? Number(el.getAttribute(a)) : null);
        return {
          width: num(svg, 'width')!,
          zero: num(svg.querySelector('[data-testid="zero-line"]'), 'x1'),
          rows: [...svg.querySelectorAll('[data-testid="forest-row"]')].map((g) => ({
            metric: g.getAttribute('data-metric-id'),
            label: g.querySelector('text')?.textContent,
            dot: num(g.querySelector('circle'), 'cx'),
            x1: num(g.querySelector('line'), 'x1'),
            x2: num(g.querySelector('line'), 'x2'),
          })),
        };
      });
      const expected = forestPlot(comparison.metrics as MetricComparison[], forestLayout(drawn.width));
      expect(drawn.width).toBe(760); // the widest drawing, on a 1280 px page
      expect(drawn.zero).toBeCloseTo(expected.zeroX, 1);
      expect(drawn.rows.map((r) => [r.metric, r.label])).toEqual(comparison.metrics.map((m) => [m.metricId, m.name]));
      drawn.rows.forEach((r, i) => {
        expect(r.dot).toBeCloseTo(expected.rows[i]!.dotX!, 1);
        expect(r.x1).toBeCloseTo(expected.rows[i]!.x1!, 1);
        expect(r.x2).toBeCloseTo(expected.rows[i]!.x2!, 1);
      });
      const [similarityRow, nonEmptyRow] = drawn.rows;
      expect(similarityRow!.x2!).toBeLessThan(drawn.zero!); // regressed: the whole interval left of zero
      expect(similarityRow!.dot!).toBeLessThan(drawn.zero!);
      expect(nonEmptyRow!.x1!).toBeLessThan(drawn.zero!); // no significant change: the interval crosses zero
      expect(nonEmptyRow!.x2!).toBeGreaterThan(drawn.zero!);
      expect(nonEmptyRow!.dot!).toBeCloseTo(drawn.zero!, 1);
      expect(await plot.getAttribute('aria-label')).toContain('regressed, difference −0.300');

      // verdicts, n and the detectable effect per metric
      const metricRows = await page
        .locator('[data-testid="comparison-metrics"] tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      expect(metricRows.map((r) => [r[0], r[3], r[4], r[5], r[6], r[7], r[8]])).toEqual([
        [name('met_text_similarity'), '−0.300', '−0.540 to −0.060', 'Regressed', '6', '±0.250', '0.024'],
        [name('met_non_empty_output'), '0.000', '−0.100 to +0.100', 'No significant change', '6', '±0.120', '1.000'],
      ]);

      // the cases that moved most, largest first, with both runs' real outputs side by side
      const moved = page.locator('[data-testid="moved-case"]');
      expect(await moved.count()).toBe(2);
      const movedCases = await moved.evaluateAll((articles) =>
        articles.map((a) => ({
          testCase: a.getAttribute('data-test-case-id'),
          heading: a.querySelector('h3')?.textContent,
          input: a.querySelector('.case-input')?.textContent,
          outputs: [...a.querySelectorAll('[data-testid="output"]')].map((o) => [
            o.getAttribute('data-session-id'),
            o.querySelector('p')?.textContent,
          ]),
        })),
      );
      expect(movedCases).toEqual(
        ['hello 2', 'hello 1'].map((input) => ({
          testCase: caseOf(input),
          heading: `${name('met_text_similarity')}: 1.000 → ${input === 'hello 2' ? '0.200' : '0.400'} (${input === 'hello 2' ? '−0.800' : '−0.600'})`,
          input: `Input ${input}`,
          outputs: [
            [baseSessions.get(caseOf(input)), input],
            [runSessions.get(caseOf(input)), 'I cannot help with that request at all.'],
          ],
        })),
      );
      // side by side: the baseline's column left of the run's
      const columns = await moved
        .first()
        .locator('.side')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()));
      expect(columns[0]!.right).toBeLessThanOrEqual(columns[1]!.left);
      expect(Math.abs(columns[0]!.top - columns[1]!.top)).toBeLessThan(1);
      await screenshots(page, 'comparison');

      // one metric's cases: asked with metricIds
      await page.getByRole('link', { name: name('met_text_similarity'), exact: true }).click();
      expect(await waitInPage(page, 'location.hash.includes("metric=")', 30_000)).toBe(true);
      // (the page asks again once the hash changed; the cases shown before stay until it answers)
      await expect.poll(() => asked.at(-1)?.searchParams.get('metricIds')).toBe('met_text_similarity');
      await moved.first().waitFor();

      // while a run is still running the route answers 409: the page says why, with links back
      await page.unroute((url) => url.pathname.startsWith(`/runs/${runId}/comparison`));
      await page.route(
        (url) => url.pathname === `/runs/${runId}/comparison`,
        (route) =>
          route.fulfill({
            status: 409,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'Conflict', message: 'the base run is RUNNING' }),
          }),
      );
      await page.goto(`${base}/#/runs/${runId}/comparison?base=${baseId}&metric=x`);
      await page.locator('[data-state="not-ready"]').waitFor();
      expect(await page.getByRole('alert').textContent()).toMatch(/409 Conflict\): the base run is RUNNING/);
      await page.close();
    }, 150_000);
  });

  it('shows a session with its turns, its spans as a tree with timings and its evaluations with reasons', async () => {
    const product = (await http('POST', '/products', { name: 'traced bot' })).body;
    const version = (await http('POST', '/versions', { productId: product.id, name: 'v1' })).body;
    const session = (await http('POST', '/sessions', { versionId: version.id })).body;
    const turn = (
      await http('POST', '/inferenceResults', {
        sessionId: session.id,
        input: 'what is the refund policy?',
        output: 'Refunds within 30 days.',
        latencyMs: 900,
      })
    ).body;
    const at = (ms: number) => new Date(Date.parse('2026-01-01T10:00:00.000Z') + ms).toISOString();
    const spans = [
      { id: `trace_${turn.id}_agent`, name: 'answer question', type: 'AGENT', startTime: at(0), endTime: at(900) },
      {
        id: `trace_${turn.id}_search`,
        parentTraceId: `trace_${turn.id}_agent`,
        name: 'search policies',
        type: 'RETRIEVER',
        startTime: at(50),
        endTime: at(350),
      },
      {
        id: `trace_${turn.id}_llm`,
        parentTraceId: `trace_${turn.id}_agent`,
        name: 'write answer',
        type: 'GENERATION',
        startTime: at(400),
        endTime: at(880),
      },
      {
        id: `trace_${turn.id}_tool`,
        parentTraceId: `trace_${turn.id}_llm`,
        name: 'lookup order',
        type: 'TOOL',
        startTime: at(500),
        endTime: at(600),
        error: 'order service timed out',
      },
    ].map((s) => ({ ...s, inferenceResultId: turn.id }));
    expect((await http('POST', '/traces/batch', { spans })).status).toBe(201);
    expect(
      (
        await http('POST', '/evaluations', {
          sessionId: session.id,
          inferenceResultId: turn.id,
          metricIds: ['met_non_empty_output'],
        })
      ).status,
    ).toBe(201);
    const [evaluation] = await poll(
      'evaluation',
      async () => (await http('GET', `/evaluations?sessionIds=${session.id}`)).body,
      (list: { status: string; reason: string }[]) => list.length === 1 && list[0]!.status === 'SUCCESS',
    );
    expect(evaluation!.reason).toBeTruthy();

    page = await signedIn(`#/sessions/${session.id}`);
    const tree = page.locator('[data-testid="span-tree"]');
    await tree.waitFor();
    const nodes = await tree.locator('[data-testid="span"]').evaluateAll((els) =>
      els.map((el) => ({
        id: el.getAttribute('data-span-id'),
        depth: Number(el.getAttribute('data-depth')),
        parent: el.parentElement?.closest('[data-testid="span"]')?.getAttribute('data-span-id') ?? null,
      })),
    );
    expect(nodes).toEqual([
      { id: spans[0]!.id, depth: 0, parent: null },
      { id: spans[1]!.id, depth: 1, parent: spans[0]!.id },
      { id: spans[2]!.id, depth: 1, parent: spans[0]!.id },
      { id: spans[3]!.id, depth: 2, parent: spans[2]!.id },
    ]);
    expect(await tree.locator(`[data-span-id="${spans[3]!.id}"] .span-time`).textContent()).toBe(
      'starts at +500 ms, takes 100 ms',
    );
    expect(await tree.locator(`[data-span-id="${spans[3]!.id}"] .span-error`).textContent()).toBe(
      'Error: order service timed out',
    );
    expect(await page.locator('[data-testid="turns"]').textContent()).toContain('what is the refund policy?');
    const evaluationRow = await page.locator('[data-testid="evaluations"] tbody tr').textContent();
    expect(evaluationRow).toContain('non_empty_output');
    expect(evaluationRow).toContain(evaluation!.reason);
    // At 390 px the table scrolls sideways in its region, and the reason keeps a readable width (not a word per line).
    await page.setViewportSize({ width: 390, height: 844 });
    const reasonWidth = await page
      .locator('[data-testid="evaluations"] tbody tr td:last-child')
      .evaluate((td) => td.getBoundingClientRect().width);
    expect(reasonWidth).toBeGreaterThanOrEqual(280);
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshots(page, 'session');
    await page.close();
  });

  it("plays a voice run's call recording and each turn's audio on the session page", async () => {
    // The server's phone line answers this number with the example voice agent; the LLM stub speaks
    // and hears the tones it understands.
    const product = (await http('POST', '/products', { name: 'voice bot' })).body;
    const phone = (
      await http('POST', '/phoneConnections', {
        productId: product.id,
        name: 'support line',
        phoneNumber: inject('voiceNumber'),
      })
    ).body;
    const version = (
      await http('POST', '/versions', { productId: product.id, name: 'v1', phoneConnectionId: phone.id })
    ).body;
    const presigned = (await http('GET', '/storage/generate-put-presigned-url?fileName=calls.csv&contentType=text/csv'))
      .body;
    await fetch(presigned.url, {
      method: 'PUT',
      body: 'input,expected_output\nwhere is my order,where is my order\n',
      headers: { 'content-type': 'text/csv' },
    });
    const test = (
      await http('POST', '/tests', { productId: product.id, name: 'calls', type: 'QUALITY', uri: presigned.uri })
    ).body;
    const created = await http('POST', '/runs', {
      versionId: version.id,
      testId: test.id,
      metricIds: ['met_text_similarity'],
    });
    expect(created.status).toBe(201);
    expect(created.body.channel).toBe('PHONE');
    await poll(
      'voice run',
      async () => (await http('GET', `/runs/${created.body.id}`)).body,
      (r) => r.status === 'COMPLETED',
      60_000,
    );
    const [session] = (await http('GET', `/sessions?runIds=${created.body.id}`)).body;
    await poll(
      'call recording',
      async () => (await http('GET', `/sessions/${session.id}`)).body,
      (x) => typeof x.recordingUri === 'string',
    );
    const page = await signedIn(`#/sessions/${session.id}`);
    await page.locator('[data-testid="recording"] audio').waitFor();
    const players = page.locator('audio[data-testid="audio"]');
    // The recording, then what was said and the agent's answer.
    expect(await players.count()).toBe(3);
    const labels = await players.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(labels).toEqual(['Call recording', 'Turn 1, what was said', "Turn 1, the agent's answer"]);
    // Each plays: its URL answers a WAV, and the browser reads its duration.
    for (const src of await players.evaluateAll((els) => els.map((e) => (e as unknown as { src: string }).src))) {
      const res = await fetch(src);
      expect(res.status).toBe(200);
      expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 4))).toBe('RIFF');
    }
    // The browser reads the recording's duration from its header (or says why it cannot).
    const duration = await players.first().evaluate(
      (el) =>
        new Promise<number | string>((resolve) => {
          const audio = el as unknown as {
            preload: string;
            duration: number;
            error: { code: number } | null;
            load(): void;
            addEventListener(t: string, f: () => void, o: object): void;
          };
          audio.addEventListener('loadedmetadata', () => resolve(audio.duration), { once: true });
          audio.addEventListener('error', () => resolve(`error ${audio.error?.code}`), { once: true });
          setTimeout(() => resolve('no metadata in 10 s'), 10_000);
          audio.preload = 'metadata';
          audio.load();
        }),
    );
    expect(duration, String(duration)).toBeTypeOf('number');
    expect(duration).toBeGreaterThan(0.5);
    expect(await page.locator('[data-testid="turns"]').textContent()).toContain('where is my order');
    // Once the recording is analysed: who spoke when, both channels' segments drawn, and the figures.
    const analysed = await poll(
      'voice figures',
      async () => (await http('GET', `/sessions/${session.id}`)).body,
      (x) => x.voice !== null,
      30_000,
    );
    await page.reload();
    const timeline = page.locator('[data-testid="voice-timeline"]');
    await timeline.waitFor();
    expect(await timeline.locator('rect.voice-agent').count()).toBe(analysed.voice.segments.agent.length);
    expect(await timeline.locator('rect.voice-user').count()).toBe(analysed.voice.segments.user.length);
    expect(analysed.voice.segments.agent.length).toBeGreaterThan(0);
    expect(analysed.voice.segments.user.length).toBeGreaterThan(0);
    expect(await timeline.getAttribute('aria-label')).toMatch(/^Who spoke when\. The agent spoke .+ in \d+ stretches/);
    const figures = await page.locator('[data-testid="session-voice"] dl').textContent();
    expect(figures).toContain('Agent speech');
    expect(figures).toContain('Dead air');
    // A click on the drawing plays the recording from that moment.
    const box = (await timeline.boundingBox())!;
    await timeline.click({ position: { x: box.width * 0.75, y: box.height / 3 } });
    const at = await page
      .locator('[data-testid="recording"] audio')
      .evaluate((el) => (el as unknown as { currentTime: number }).currentTime);
    expect(at).toBeGreaterThan(0);
    await screenshots(page, 'voice-session');
    // The run page: the spread of its calls' figures.
    await page.goto(page.url().replace(/#.*/, `#/runs/${created.body.id}`));
    const runVoice = page.locator('[data-testid="run-voice"]');
    await runVoice.waitFor();
    expect(await runVoice.locator('table').textContent()).toContain('Response latency');
    expect(await runVoice.textContent()).toContain('Barge-in recovery');
    await page.close();
  });
});
