import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startAgent, sendJson, type TestAgentServer } from '../support/agent-server.js';
import { httpWithKey, launchChromium, screenshots } from '../support/browser.js';
import { runScript } from '../support/raw-http.js';

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

  it('draws one line and one band per family matching the results route, with markers, worst metric, spend and sessions', async () => {
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
    // The agent holds its answers until the test has seen the run running (no race with the page).
    let answer: () => void = () => undefined;
    const answering = new Promise<void>((resolve) => {
      answer = resolve;
    });
    beforeAll(async () => {
      agent = await startAgent(async (req, res) => {
        await answering;
        sendJson(res, 200, { reply: req.json?.message ?? '' });
      });
    });
    afterAll(async () => {
      answer();
      await agent.close();
    });

    it('shows progress moving to COMPLETED, per-metric scores and the sessions, then a session', async () => {
      const product = (await http('POST', '/products', { name: 'console run bot' })).body;
      const conversation = (
        await http('POST', '/endpointConnections', {
          productId: product.id,
          name: 'slow echo',
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
      const cases = (
        await http('POST', '/tests', {
          productId: product.id,
          name: 'console cases',
          type: 'QUALITY',
          uri: presigned.uri,
        })
      ).body;
      expect(cases).toMatchObject({ status: 'SUCCESS', testCaseCount: 6 });
      const created = await http('POST', '/runs', {
        versionId: version.id,
        testId: cases.id,
        name: 'console run',
        metricIds: ['met_non_empty_output', 'met_text_similarity'],
      });
      expect(created.status).toBe(201);

      page = await signedIn(`#/runs/${created.body.id}`);
      const progress = page.locator('[data-testid="progress"] progress');
      await progress.waitFor();
      const first = Number(await progress.getAttribute('value'));
      expect(first).toBeLessThan(1);
      await screenshots(page, 'run-running');
      answer();
      await page.locator('[data-testid="run-facts"] .badge', { hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
      expect(Number(await progress.getAttribute('value'))).toBe(1);
      expect(await page.locator('[data-testid="progress"]').textContent()).toMatch(/6 of 6 finished — 6 completed/);
      const run = (await http('GET', `/runs/${created.body.id}`)).body;
      const metricRows = await page.locator('[data-testid="run-metrics"] tbody tr').allTextContents();
      expect(metricRows).toHaveLength(run.metrics.length);
      for (const m of run.metrics) expect(metricRows.find((r) => r.startsWith(m.name))).toContain(m.score.toFixed(3));
      const sessionRows = page.locator('[data-testid="run-sessions"] tbody tr');
      expect(await sessionRows.count()).toBe(6);
      await screenshots(page, 'run');

      await page.goto(`${base}/#/runs`);
      await page.locator('[data-testid="runs"] tr', { hasText: 'console run' }).first().waitFor();
      await screenshots(page, 'runs');

      await page.goto(`${base}/#/runs/${created.body.id}`);
      await sessionRows.first().getByRole('link').click();
      await page.locator('[data-testid="turns"]').waitFor();
      expect(await page.locator('[data-testid="turns"]').textContent()).toMatch(/hello \d/);
      await page.locator('[data-testid="evaluations"]').waitFor();
      await page.close();
    }, 120_000);
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
});
