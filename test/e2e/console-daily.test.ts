import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { httpWithKey, launchChromium, screenshots, waitInPage } from '../support/browser.js';

/**
 * The console for every day (DESIGN §27) in a real Chromium at 1280 px against the e2e server:
 * every metric column of a 5-metric run and its sorting, the runs list as an entry point (names,
 * scores, filters, search), names instead of ids, starting a run and uploading a test from the
 * console, a key remembered on the device, and the comparison's moved cases.
 */
const base = inject('serverUrl');
const key = inject('demoApiKey');
const http = httpWithKey(base, key);

const FIVE_METRICS = ['met_text_similarity', 'met_text_match', 'met_bleu', 'met_rouge', 'met_non_empty_output'];
/** What the agent answers per message: right for the baseline, partly wrong otherwise. */
const WRONG: Record<string, string> = {
  'hello 1': 'hello one',
  'hello 3': 'I cannot help with that request at all.',
  'hello 4': 'hello 4 and a little more text',
};

let browser: Browser;
let agent: TestAgentServer;
let answerRight = false;
const pageErrors: string[] = [];
let fixture: { product: any; version: any; test: any; cases: { id: string; index: number; input: string }[] };
/** The 5-metric run (no name given: the API names it), and a baseline run of the same test answered right. */
let run: any;
let baseline: any;

async function poll<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 400));
  }
}

const finished = (id: string) =>
  poll(
    `run ${id}`,
    async () => (await http('GET', `/runs/${id}`)).body,
    (r) => r.status === 'COMPLETED' || r.status === 'FAILED',
  );

async function uploadCsv(productId: string, name: string, csv: string) {
  const presigned = (await http('GET', '/storage/generate-put-presigned-url?fileName=cases.csv&contentType=text/csv'))
    .body;
  const put = await fetch(presigned.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
  expect(put.status).toBe(200);
  const test = await http('POST', '/tests', { productId, name, type: 'QUALITY', uri: presigned.uri });
  expect(test.body).toMatchObject({ status: 'SUCCESS' });
  return test.body;
}

/** A tab of `context` (a fresh one by default) at 1280 px with the key typed in; `remember` ticks the box. */
async function signedIn(hash: string, options: { context?: BrowserContext; remember?: boolean } = {}): Promise<Page> {
  const p = options.context ? await options.context.newPage() : await browser.newPage();
  await p.setViewportSize({ width: 1280, height: 900 });
  p.on('pageerror', (error) => pageErrors.push(error.message));
  await p.goto(`${base}/${hash}`);
  await p.getByLabel('API key').fill(key);
  if (options.remember) await p.getByLabel('Remember on this device').check();
  await p.getByLabel('API key').press('Enter');
  return p;
}

beforeAll(async () => {
  browser = await launchChromium();
  agent = await startAgent((req, res) => {
    const message: string = req.json?.message ?? '';
    sendJson(res, 200, { reply: answerRight ? message : (WRONG[message] ?? message) });
  });
  const product = (await http('POST', '/products', { name: 'daily bot' })).body;
  const connection = (
    await http('POST', '/endpointConnections', {
      productId: product.id,
      name: 'daily echo',
      url: `${agent.url}/chat`,
      inputTemplate: '{"message": "{{ input.user_message }}"}',
      outputMapping: { output: '$.reply' },
      type: 'CONVERSATION',
      rateLimit: 600,
    })
  ).body;
  const version = (
    await http('POST', '/versions', {
      productId: product.id,
      name: 'v1',
      conversationEndpointConnectionId: connection.id,
    })
  ).body;
  const csv = ['input,expected_output', ...Array.from({ length: 6 }, (_, i) => `hello ${i},hello ${i}`)].join('\n');
  const test = await uploadCsv(product.id, 'daily cases', csv);
  const cases = (await http('GET', `/testCases?testIds=${test.id}&limit=100`)).body;
  fixture = { product, version, test, cases };
  answerRight = true;
  const baseCreated = await http('POST', '/runs', {
    versionId: version.id,
    testId: test.id,
    name: 'daily baseline',
    metricIds: ['met_text_similarity'],
  });
  expect(baseCreated.status).toBe(201);
  baseline = await finished(baseCreated.body.id);
  answerRight = false;
  const created = await http('POST', '/runs', { versionId: version.id, testId: test.id, metricIds: FIVE_METRICS });
  expect(created.status).toBe(201);
  run = await finished(created.body.id);
  expect(run.status).toBe('COMPLETED');
}, 120_000);

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await agent?.close();
});

/** Each row: its session, the case link's text, the first cell's text and the summary of each score cell. */
function readRows(page: Page) {
  return page.locator('[data-testid="run-results"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => {
      const tds = [...tr.querySelectorAll('td')];
      return {
        session: tr.getAttribute('data-session-id')!,
        caseLink: tds[0]!.querySelector('a')?.textContent ?? '',
        first: tds[0]!.textContent ?? '',
        scores: tds.slice(4).map((td) => td.querySelector('summary')?.textContent ?? td.textContent ?? ''),
      };
    }),
  );
}

describe('the console for every day', () => {
  it('names a run without a name after its version, test and time (UTC)', () => {
    const at = new Date(run.createdAt);
    const month = at.toLocaleString('en', { month: 'short', timeZone: 'UTC' });
    const time = at.toISOString().slice(11, 16);
    expect(run.name).toBe(`v1 · daily cases · ${month} ${at.getUTCDate()}, ${time}`);
  });

  it('shows every metric column of a 5-metric run at 1280 px, rows in test-case order, sorted by any metric with the mouse or the keyboard', async () => {
    const page = await signedIn(`#/runs/${run.id}`);
    const results = page.locator('[data-testid="run-results"]');
    await results.locator('tbody tr').nth(5).waitFor();
    const names = run.metrics.map((m: { name: string }) => m.name);
    expect(names).toHaveLength(5);
    expect(await results.locator('thead th').allTextContents()).toEqual([
      'Case',
      'Input',
      "Agent's output",
      'Expected output',
      ...names,
    ]);

    // Every metric's header and cells: inside the table's box once scrolled into view, clear of the
    // sticky case column, and not cut inside their own cell; at 1280 px, and on a phone, where the
    // table scrolls inside its box and the case column stays in view.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 844 });
      await page.evaluate(() => {
        (globalThis as any).document.querySelector('[data-testid="run-results"]').closest('.table-wrap').scrollLeft = 0;
      });
      for (let k = 0; k < 5; k++) {
        const column = 5 + k;
        const geometry = await page.evaluate(
          ({ column }) => {
            const doc = (globalThis as any).document;
            const table = doc.querySelector('[data-testid="run-results"]');
            const wrap = table.closest('.table-wrap');
            const th = table.querySelector(`thead th:nth-child(${column})`);
            th.scrollIntoView({ block: 'nearest', inline: 'nearest' });
            const box = wrap.getBoundingClientRect();
            const sticky = table.querySelector('tbody tr td:first-child').getBoundingClientRect();
            const cells = [th, ...table.querySelectorAll(`tbody td:nth-child(${column})`)].map((el: any) => {
              const r = el.getBoundingClientRect();
              return {
                left: r.left,
                right: r.right,
                clipped: el.scrollWidth > el.clientWidth + 1,
                text: el.textContent,
              };
            });
            return {
              box: { left: box.left, right: box.right },
              scrolls: wrap.scrollWidth > wrap.clientWidth,
              sticky: { left: sticky.left, right: sticky.right },
              viewport: doc.documentElement.clientWidth,
              pageOverflow: doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
              cells,
            };
          },
          { column },
        );
        const at = `${names[k]} at ${width} px`;
        expect(geometry.pageOverflow, `${at}: the page itself never scrolls sideways`).toBeLessThanOrEqual(1);
        expect(geometry.box.right).toBeLessThanOrEqual(geometry.viewport + 0.5);
        // the case column is in view, at the box's left edge, however far the table scrolled
        expect(Math.abs(geometry.sticky.left - geometry.box.left), at).toBeLessThanOrEqual(1);
        if (width === 390) expect(geometry.scrolls, `${at}: the table scrolls in its box`).toBe(true);
        expect(geometry.cells[0]!.text).toBe(names[k]);
        for (const cell of geometry.cells) {
          expect(cell.right, `${at}: ${cell.text}`).toBeLessThanOrEqual(geometry.box.right + 0.5);
          expect(cell.left, `${at}: ${cell.text}`).toBeGreaterThanOrEqual(geometry.sticky.right - 0.5);
          expect(cell.clipped, `${at}: ${cell.text}`).toBe(false);
        }
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshots(page, 'run-five-metrics');

    // test-case order, whatever order the sessions were created in
    const inOrder = await readRows(page);
    expect(inOrder.map((r) => r.caseLink)).toEqual(['Case 1', 'Case 2', 'Case 3', 'Case 4', 'Case 5', 'Case 6']);
    // the "did not pass" marker names the metrics, each with its score
    const sessions = (await http('GET', `/sessions?runIds=${run.id}&limit=100`)).body as { id: string }[];
    const evaluations = (await http('GET', `/evaluations?sessionIds=${sessions.map((s) => s.id).join(',')}&limit=100`))
      .body as { sessionId: string; metricId: string; metricName: string; score: number; status: string }[];
    const scoreOf = (session: string, metricId: string) =>
      evaluations.find((e) => e.sessionId === session && e.metricId === metricId)!.score;
    for (const row of inOrder) {
      const failing = run.metrics.filter(
        (m: { metricId: string }) => scoreOf(row.session, m.metricId) < run.threshold,
      ) as { metricId: string; name: string }[];
      if (failing.length === 0) expect(row.first).not.toContain('Did not pass');
      else
        expect(row.first).toContain(
          `Did not pass: ${failing.map((m) => `${m.name} (${scoreOf(row.session, m.metricId).toFixed(3)})`).join(', ')}`,
        );
    }
    expect(inOrder.filter((r) => r.first.includes('Did not pass'))).not.toHaveLength(0);

    // a click sorts by text_similarity, lowest first; the order is in the link
    const k = run.metrics.findIndex((m: { metricId: string }) => m.metricId === 'met_text_similarity');
    const header = results.locator('thead th').nth(4 + k);
    await header.getByRole('button').click();
    await page
      .locator(
        '[data-testid="run-results"] thead th[aria-sort="ascending"] button[data-sort-key="met_text_similarity"]',
      )
      .waitFor();
    expect(new URL(page.url()).hash).toBe(`#/runs/${run.id}?sort=met_text_similarity%3Aasc`);
    const similarity = (rows: Awaited<ReturnType<typeof readRows>>) =>
      rows.map((r) => scoreOf(r.session, 'met_text_similarity'));
    const ascending = similarity(await readRows(page));
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(ascending[0]).toBeLessThan(ascending.at(-1)!);
    // the focus stays on the header: Enter sorts highest first, then back to test-case order
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.dataset.sortKey)).toBe(
      'met_text_similarity',
    );
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="run-results"] thead th[aria-sort="descending"]').waitFor();
    const descending = similarity(await readRows(page));
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="run-results"] thead th[data-sort-key="case"][aria-sort="ascending"]').waitFor();
    expect((await readRows(page)).map((r) => r.caseLink)).toEqual(inOrder.map((r) => r.caseLink));
    expect(new URL(page.url()).hash).toBe(`#/runs/${run.id}`);

    // a sorted link opens sorted (another metric, highest first)
    await page.goto(`${base}/#/runs/${run.id}?sort=met_bleu:desc`);
    await page
      .locator('[data-testid="run-results"] thead th[aria-sort="descending"][data-sort-key="met_bleu"]')
      .waitFor();
    const bleu = (await readRows(page)).map((r) => scoreOf(r.session, 'met_bleu'));
    expect(bleu).toEqual([...bleu].sort((a, b) => b - a));

    // the run's facts and its session's page: names, ids only on hover
    await page.goto(`${base}/#/runs/${run.id}`);
    const facts = page.locator('[data-testid="run-facts"]');
    await facts.waitFor();
    const text = (await facts.textContent())!;
    for (const name of ['daily bot', 'v1', 'daily cases']) expect(text).toContain(name);
    for (const id of [fixture.product.id, fixture.version.id, fixture.test.id]) {
      expect(text).not.toContain(id);
      expect(await facts.locator(`[title="${id}"]`).count()).toBe(1);
      expect(await facts.locator(`button[data-copy="${id}"]`).count()).toBe(1);
    }
    await page.locator('[data-testid="run-results"] tbody tr').first().getByRole('link').click();
    await page.locator('[data-testid="turns"]').waitFor();
    const sessionFacts = (await page.locator('.facts').textContent())!;
    const firstCase = fixture.cases.find((c) => c.index === 1)!;
    expect(sessionFacts).toContain('Testdaily cases');
    expect(sessionFacts).toContain('Test caseCase 1');
    expect(sessionFacts).not.toContain(firstCase.id);
    expect(sessionFacts).not.toContain(fixture.test.id);
    expect(await page.locator(`.facts [title="${firstCase.id}"]`).textContent()).toBe('Case 1');
    await page.close();
  }, 120_000);

  it('lists runs with product, version and test by name, each metric’s score and pass rate (three, then +n), filtered and searched', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await signedIn('#/runs', { context });
    const row = page.locator(`[data-testid="runs"] tr[data-run-id="${run.id}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 5)).toEqual([run.name, 'daily bot', 'v1', 'daily cases', 'COMPLETED']);
    for (const id of [fixture.product.id, fixture.version.id, fixture.test.id]) {
      expect(cells.join(' ')).not.toContain(id);
      expect(await row.locator(`[title="${id}"]`).count()).toBe(1);
    }
    // the first three metrics with score and pass rate, then "+2 more"
    const scores = await row.locator('[data-testid="run-scores"] li').allTextContents();
    expect(scores).toEqual([
      ...run.metrics
        .slice(0, 3)
        .map(
          (m: { name: string; score: number; passRate: number }) =>
            `${m.name} ${m.score.toFixed(3)} · ${Math.round(m.passRate * 100)}% pass`,
        ),
      '+2 more',
    ]);
    // the copy button puts the id on the clipboard
    await row.locator(`button[data-copy="${fixture.version.id}"]`).click();
    await row.locator(`button[data-copy="${fixture.version.id}"][data-copied="yes"]`).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(fixture.version.id);

    // filters: the test (by name), then the status; each asks the API with its list parameter
    const asked: URL[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/runs') asked.push(url);
    });
    const filters = page.locator('[data-testid="run-filters"]');
    await filters.getByLabel('Test', { exact: true }).selectOption(fixture.test.id);
    expect(await waitInPage(page, `location.hash.includes("test=${fixture.test.id}")`, 10_000)).toBe(true);
    await page.locator('[data-testid="runs"] tbody tr').first().waitFor();
    const shownRuns = () =>
      page
        .locator('[data-testid="runs"] tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id')));
    await expect
      .poll(async () => (await shownRuns()).sort(), { timeout: 20_000 })
      .toEqual([run.id, baseline.id].sort());
    expect(asked.some((u) => u.searchParams.get('testIds') === fixture.test.id)).toBe(true);
    await filters.getByLabel('Status').selectOption('FAILED');
    await page.locator('[data-testid="run-filters"] ~ #runs-list [data-state="empty"]').waitFor();
    expect(await page.locator('#runs-list').textContent()).toContain('No run matches these filters.');
    await filters.getByLabel('Status').selectOption('COMPLETED');
    await page.locator(`[data-testid="runs"] tr[data-run-id="${baseline.id}"]`).waitFor();
    // search by name (part of it, any case), on Enter
    await filters.getByLabel('Name contains').fill('DAILY BASE');
    await filters.getByLabel('Name contains').press('Enter');
    await expect.poll(shownRuns, { timeout: 20_000 }).toEqual([baseline.id]);
    expect(asked.at(-1)!.searchParams.get('name')).toBe('DAILY BASE');
    expect(new URL(page.url()).hash).toBe(`#/runs?test=${fixture.test.id}&status=COMPLETED&q=DAILY+BASE`);
    await screenshots(page, 'runs-filtered');
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await page.locator(`[data-testid="runs"] tr[data-run-id="${run.id}"]`).waitFor();

    // the monitors list likewise: product and families by name
    const monitor = (
      await http('POST', '/monitors', {
        productId: fixture.product.id,
        name: 'daily monitor',
        metricGroupIds: ['mgrp_is_json', 'mgrp_non_empty_output'],
        samplingPercentage: 10,
      })
    ).body;
    await page.goto(`${base}/#/monitors?product=${fixture.product.id}`);
    const monitorRow = page.locator(`[data-testid="monitors"] tr[data-monitor-id="${monitor.id}"]`);
    await monitorRow.waitFor();
    expect(await page.locator('[data-testid="monitors"] tbody tr').count()).toBe(1);
    const monitorCells = await monitorRow.locator('td').allTextContents();
    expect(monitorCells.slice(0, 4)).toEqual(['daily monitor', 'daily bot', 'ACTIVE', 'is_jsonnon_empty_output']);
    expect(await monitorRow.locator('[data-testid="families"] li').allTextContents()).toEqual([
      'is_json',
      'non_empty_output',
    ]);
    await context.close();
  }, 120_000);

  it('starts a run from the runs page: version, test, metrics, repetitions', async () => {
    const page = await signedIn('#/runs');
    const form = page.locator('[data-testid="start-run"]');
    await form.waitFor();
    await form.getByLabel('Version', { exact: true }).selectOption(fixture.version.id);
    await form.getByLabel('Test', { exact: true }).selectOption(fixture.test.id);
    await form.locator('input[value="met_text_similarity"]').check();
    await form.locator('input[value="met_non_empty_output"]').check();
    await form.getByLabel(/Repetitions/).fill('2');
    await form.getByLabel('Name (optional)').fill('started in the console');
    await form.getByRole('button', { name: 'Start the run' }).click();
    await page.locator('h1', { hasText: 'started in the console' }).waitFor();
    const id = /#\/runs\/([^?/]+)/.exec(page.url())![1]!;
    const started = await finished(id);
    expect(started).toMatchObject({
      name: 'started in the console',
      versionId: fixture.version.id,
      testIds: [fixture.test.id],
      repetitions: 2,
      status: 'COMPLETED',
    });
    expect([...started.metricIds].sort()).toEqual(['met_non_empty_output', 'met_text_similarity']);
    expect(started.progress.total).toBe(12);
    await page.locator('[data-testid="run-facts"] .badge', { hasText: 'COMPLETED' }).waitFor();
    await page.locator('[data-testid="run-results"] tbody tr').nth(11).waitFor();
    // two repetitions of each case, in case order
    const links = (await readRows(page)).map((r) => r.caseLink);
    expect(links).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6].map((i) => `Case ${i}`));
    // a form error says what to fix, in the API's words when it answered
    await page.goto(`${base}/#/runs`);
    await form.waitFor();
    await form.getByLabel(/Repetitions/).fill('11');
    await form.getByRole('button', { name: 'Start the run' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('Repetitions is a whole number from 1 to 10.');
    await page.close();
  }, 120_000);

  it('uploads a CSV as a test, and adds a product and a version, from the runs page', async () => {
    const page = await signedIn('#/runs');
    const product = page.locator('[data-testid="create-product"]');
    await product.waitFor();
    await product.getByLabel('Name').fill('uploaded bot');
    await product.getByRole('button', { name: 'Add the product' }).click();
    const message = page.locator('[data-testid="action-message"]');
    await message.filter({ hasText: 'Product “uploaded bot” added.' }).waitFor();
    const products = (await http('GET', '/products?name=uploaded%20bot')).body as { id: string }[];
    expect(products).toHaveLength(1);
    const productId = products[0]!.id;

    // the new product is chosen in the upload form
    const upload = page.locator('[data-testid="upload-test"]');
    expect(await upload.getByLabel('Product').inputValue()).toBe(productId);
    await upload.getByLabel('Name').fill('uploaded cases');
    await upload.getByLabel(/^Type/).selectOption('QUALITY');
    await upload.getByLabel('CSV file').setInputFiles({
      name: 'faq.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'input,expected_output\nwhere is my order?,It ships today.\nrefunds?,Within 30 days.\nhi,Hello!\n',
      ),
    });
    await upload.getByRole('button', { name: 'Upload the test' }).click();
    await message.filter({ hasText: 'Test “uploaded cases” uploaded: 3 cases.' }).waitFor();
    const tests = (await http('GET', `/tests?productIds=${productId}`)).body as any[];
    expect(tests).toEqual([expect.objectContaining({ name: 'uploaded cases', status: 'SUCCESS', testCaseCount: 3 })]);
    const cases = (await http('GET', `/testCases?testIds=${tests[0].id}&sort=index:asc`)).body as any[];
    expect(cases.map((c) => [c.input, c.expectedOutput])).toEqual([
      ['where is my order?', 'It ships today.'],
      ['refunds?', 'Within 30 days.'],
      ['hi', 'Hello!'],
    ]);

    // a CSV whose header lacks the type's columns: the API's 400 on the form, no test made
    await upload.getByLabel('Name').fill('bad header');
    await upload.getByLabel('CSV file').setInputFiles({
      name: 'bad.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('question,answer\nhi,hello\n'),
    });
    await upload.getByRole('button', { name: 'Upload the test' }).click();
    const error = upload.getByRole('alert');
    await error.filter({ hasText: '400' }).waitFor();
    expect(await error.textContent()).toMatch(/input/);
    expect((await http('GET', `/tests?productIds=${productId}`)).body).toHaveLength(1);

    // a version of the new product (it has no endpoint connection yet: the message says it cannot run)
    const version = page.locator('[data-testid="create-version"]');
    expect(await version.getByLabel('Product').inputValue()).toBe(productId);
    await version.getByLabel('Name').fill('v9');
    await version.getByRole('button', { name: 'Add the version' }).click();
    await message.filter({ hasText: 'Version “v9” added (without an endpoint connection, it cannot run).' }).waitFor();
    expect((await http('GET', `/versions?productIds=${productId}`)).body).toEqual([
      expect.objectContaining({ name: 'v9', conversationEndpointConnectionId: null }),
    ]);
    // a version with the fixture's connection is offered to start a run at once
    await version.getByLabel('Product').selectOption(fixture.product.id);
    const connections = version.getByLabel(/Endpoint connection/).locator('option');
    await expect.poll(() => connections.allTextContents(), { timeout: 20_000 }).toContain('daily echo');
    await version.getByLabel('Name').fill('v2');
    await version.getByRole('button', { name: 'Add the version' }).click();
    await message.filter({ hasText: 'Version “v2” added.' }).waitFor();
    const v2 = ((await http('GET', `/versions?productIds=${fixture.product.id}&name=v2`)).body as any[])[0];
    expect(v2.conversationEndpointConnectionId).toBeTruthy();
    expect(await page.locator('[data-testid="start-run"]').getByLabel('Version', { exact: true }).inputValue()).toBe(
      v2.id,
    );
    await screenshots(page, 'runs-actions');
    await page.close();
  }, 120_000);

  it('remembers the key on this device when asked, so a pasted link opens in a new tab', async () => {
    const link = `${base}/#/runs/${run.id}`;
    const remembered = await browser.newContext();
    const first = await signedIn('#/runs', { context: remembered, remember: true });
    await first.locator('h1', { hasText: 'Runs' }).waitFor();
    const second = await remembered.newPage();
    second.on('pageerror', (e) => pageErrors.push(e.message));
    await second.goto(link);
    await second.locator('h1', { hasText: run.name }).waitFor();
    expect(await second.locator('[data-testid="key-form"]').count()).toBe(0);
    // "Change key" forgets it everywhere: a third tab asks again
    await second.getByRole('button', { name: 'Change key' }).click();
    await second.locator('[data-testid="key-form"]').waitFor();
    const third = await remembered.newPage();
    await third.goto(link);
    await third.locator('[data-testid="key-form"]').waitFor();
    await remembered.close();

    // not ticked: the key stays in its tab
    const tabOnly = await browser.newContext();
    const one = await signedIn('#/runs', { context: tabOnly });
    await one.locator('h1', { hasText: 'Runs' }).waitFor();
    const other = await tabOnly.newPage();
    await other.goto(link);
    await other.locator('[data-testid="key-form"]').waitFor();
    expect(await other.getByLabel('Remember on this device').isChecked()).toBe(false);
    await tabOnly.close();
  }, 60_000);

  it("compares with a baseline: the moved cases show the expected output, both reasons and a word diff; the plot's labels match its gridlines", async () => {
    const page = await signedIn(`#/runs/${run.id}/comparison?base=${baseline.id}`);
    const moved = page.locator('[data-testid="moved-case"]');
    await moved.first().waitFor();
    const found = await moved.evaluateAll((articles) =>
      articles.map((a) => ({
        testCase: a.getAttribute('data-test-case-id'),
        expected: a.querySelector('[data-testid="expected"]')?.textContent,
        outputs: [...a.querySelectorAll('[data-testid="output"]')].map((o) => ({
          session: o.getAttribute('data-session-id'),
          output: o.querySelector('p')?.textContent,
          reason: o.querySelector('[data-testid="reason"]')?.textContent,
        })),
        removed: [...a.querySelectorAll('[data-testid="word-diff"] .diff del')].map((d) => d.textContent?.trim()),
        added: [...a.querySelectorAll('[data-testid="word-diff"] .diff ins')].map((d) => d.textContent?.trim()),
      })),
    );
    // the three cases answered wrongly, each against the right answer of the baseline
    expect(found.map((c) => fixture.cases.find((x) => x.id === c.testCase)!.input).sort()).toEqual([
      'hello 1',
      'hello 3',
      'hello 4',
    ]);
    const sessionIds = found.flatMap((c) => c.outputs.map((o) => o.session));
    const evaluations = (await http('GET', `/evaluations?sessionIds=${sessionIds.join(',')}&limit=100`)).body as {
      sessionId: string;
      metricId: string;
      score: number;
      reason: string;
    }[];
    for (const c of found) {
      const input = fixture.cases.find((x) => x.id === c.testCase)!.input;
      expect(c.expected).toBe(`Expected ${input}`);
      expect(c.outputs.map((o) => o.output)).toEqual([input, WRONG[input]]);
      for (const o of c.outputs) {
        const e = evaluations.find((x) => x.sessionId === o.session && x.metricId === 'met_text_similarity')!;
        expect(o.reason).toBe(`Reason (${e.score.toFixed(3)}) ${e.reason}`);
      }
    }
    const one = found.find((c) => fixture.cases.find((x) => x.id === c.testCase)!.input === 'hello 1')!;
    expect(one).toMatchObject({ removed: ['1'], added: ['one'] });
    const four = found.find((c) => fixture.cases.find((x) => x.id === c.testCase)!.input === 'hello 4')!;
    expect(four).toMatchObject({ removed: [], added: ['and a little more text'] });

    // every gridline's label is the value at its position (no "−0.8" on the −0.75 line)
    const ticks = await page.locator('[data-testid="forest-plot"] .forest-tick').evaluateAll((gs) =>
      gs.map((g) => ({
        x: Number(g.querySelector('line')!.getAttribute('x1')),
        label: g.querySelector('text')!.textContent!,
      })),
    );
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const value = (label: string) => Number(label.replace('−', '-').replace('+', ''));
    const [a, b] = [ticks[0]!, ticks.at(-1)!];
    const perPixel = (value(b.label) - value(a.label)) / (b.x - a.x);
    // (the drawing rounds positions to 0.01 px; a label off by a rounding, "−0.8" at −0.75, is 0.05 off)
    for (const t of ticks) expect(value(t.label)).toBeCloseTo(value(a.label) + (t.x - a.x) * perPixel, 2);
    await screenshots(page, 'comparison-moved');
    await page.close();
  }, 90_000);
});
