import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startAgent, sendJson, type TestAgentServer } from '../support/agent-server.js';
import { httpWithKey, launchChromium, screenshots } from '../support/browser.js';
import {
  agreementVerdictHint,
  agreementVerdictLabel,
  correctedText,
  formatAlpha,
  formatBias,
  formatCoefficient,
  formatScore,
  type Agreement,
} from '../../console/src/view-models.js';

/**
 * The review pages in a real Chromium against the e2e local server: queues, blind labelling with
 * the keyboard, the judge's agreement with people, and a run's corrected scores.
 */
const base = inject('serverUrl');
const key = inject('demoApiKey');
const http = httpWithKey(base, key);

/** What the e2e server's stub judge says of every answer (test/support/llm-server.ts). */
const STUB_JUDGE_REASON = 'judged by the test judge';
const REVIEWER = 'Rita Reviewer';
/** The run's cases: `case i` expecting `case i`; the agent answers these wrongly. */
const CASES = 13;
const WRONG = new Set(['case 2', 'case 5', 'case 9']);

let browser: Browser;
let agent: TestAgentServer;
const pageErrors: string[] = [];
let product: { id: string; name: string };
let judged: { id: string; name: string };
let runId: string;
/** The queue the labelling test fills (3 sampled sessions labelled). */
let sampleQueueId: string;

async function poll<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** A fresh tab (its own storage) with the key typed into the console's form; every request it sends, logged. */
async function signedIn(hash: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  await page.goto(`${base}/${hash}`);
  await page.getByLabel('API key').focus();
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  return { page, requests };
}

beforeAll(async () => {
  browser = await launchChromium();
  agent = await startAgent((req, res) => {
    const message: string = req.json?.message ?? '';
    sendJson(res, 200, { reply: WRONG.has(message) ? 'I cannot help with that.' : message });
  });
  // A product whose agent echoes, a test of 13 cases, a judged metric (the stub judge) and a finished run.
  product = (await http('POST', '/products', { name: 'review console bot' })).body;
  const conversation = (
    await http('POST', '/endpointConnections', {
      productId: product.id,
      name: 'echo',
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
      conversationEndpointConnectionId: conversation.id,
    })
  ).body;
  const presigned = (await http('GET', '/storage/generate-put-presigned-url?fileName=cases.csv&contentType=text/csv'))
    .body;
  const csv = ['input,expected_output', ...Array.from({ length: CASES }, (_, i) => `case ${i},case ${i}`)].join('\n');
  expect(
    (await fetch(presigned.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } })).status,
  ).toBe(200);
  const test = (
    await http('POST', '/tests', { productId: product.id, name: 'review cases', type: 'QUALITY', uri: presigned.uri })
  ).body;
  expect(test).toMatchObject({ status: 'SUCCESS', testCaseCount: CASES });
  const metric = await http('POST', '/metrics', {
    name: 'review helpfulness',
    source: 'PARTIAL_PROMPT',
    evaluationParams: ['input', 'actual_output'],
    judgePrompt: 'Is the answer helpful?',
    evaluatorModelName: 'claude-3-5-haiku',
    description: 'Does the answer help the user?',
  });
  expect(metric.status).toBe(201);
  judged = metric.body;
  const created = await http('POST', '/runs', {
    versionId: version.id,
    testId: test.id,
    name: 'review run',
    metricIds: [judged.id, 'met_text_similarity'],
  });
  expect(created.status).toBe(201);
  runId = created.body.id;
  const run = await poll(
    `run ${runId}`,
    async () => (await http('GET', `/runs/${runId}`)).body,
    (r) => !['PENDING', 'RUNNING'].includes(r.status),
    60_000,
  );
  expect(run.status, JSON.stringify(run)).toBe('COMPLETED');
  expect(run.progress.completed).toBe(CASES);
}, 90_000);
afterEach(() => {
  expect(pageErrors).toEqual([]);
});
afterAll(async () => {
  await browser?.close();
  await agent?.close();
});

describe('the review pages in Chromium', () => {
  it('lists the queues with their progress, filtered by product, and creates a queue from the form', async () => {
    const other = (await http('POST', '/products', { name: 'review other bot' })).body;
    const elsewhere = (
      await http('POST', '/reviewQueues', {
        productId: other.id,
        name: 'queue of another product',
        metricIds: ['met_text_similarity'],
      })
    ).body;
    const { page } = await signedIn('#/review');
    const queues = page.locator('[data-testid="review-queues"]');
    await queues.waitFor();
    expect(await page.locator('h1').textContent()).toBe('Review');
    expect(await page.locator('#site-nav a[aria-current="page"]').textContent()).toBe('Review');
    const row = queues.locator(`tr[data-queue-id="${elsewhere.id}"]`);
    expect(await row.locator('td').allTextContents()).toEqual([
      'queue of another product',
      'review other bot',
      expect.stringMatching(/similarity/i),
      '1',
      'no items yet',
      expect.stringMatching(/UTC$/),
    ]);

    // a new queue: product, name, metrics, reviewers per item, instructions; the form opens it
    await page.locator('#queue-product').selectOption(product.id);
    await page.getByLabel('Name', { exact: true }).fill('made in the console');
    await page.getByLabel('review helpfulness', { exact: true }).check();
    await page.getByLabel('Reviewers per item (1 to 5)').fill('2');
    await page.getByLabel('Instructions for the reviewers (optional)').fill('Pass when the answer repeats the case.');
    await screenshots(page, 'review');
    await page.getByRole('button', { name: 'Create the queue' }).click();
    await page.locator('h1', { hasText: 'made in the console' }).waitFor();
    const id = /#\/review\/(rq_[\w-]+)$/.exec(page.url())?.[1];
    expect(id).toBeDefined();
    expect((await http('GET', `/reviewQueues/${id}`)).body).toMatchObject({
      productId: product.id,
      name: 'made in the console',
      metricIds: [judged.id],
      reviewersPerItem: 2,
      instructions: 'Pass when the answer repeats the case.',
      counts: { items: 0, pending: 0, done: 0 },
    });
    const facts = await page.locator('[data-testid="queue-facts"]').textContent();
    expect(facts).toContain('review console bot');
    expect(facts).toContain('review helpfulness');
    expect(facts).toContain('no items yet');

    // filtered by product: only that product's queues
    await page.goto(`${base}/#/review?product=${product.id}`);
    await page.locator(`[data-testid="review-queues"] tr[data-queue-id="${id}"]`).waitFor();
    expect(await page.locator(`[data-testid="review-queues"] tr[data-queue-id="${elsewhere.id}"]`).count()).toBe(0);
    expect(await page.locator('#queue-product-filter').inputValue()).toBe(product.id);
    await page.locator('#queue-product-filter').selectOption('');
    await page.locator(`[data-testid="review-queues"] tr[data-queue-id="${elsewhere.id}"]`).waitFor();
    expect(new URL(page.url()).hash).toBe('#/review');
    await page.close();
  });

  it('labels a sample of the run blind, with the keyboard, until nothing is left; then shows each metric’s agreement', async () => {
    const queue = (
      await http('POST', '/reviewQueues', {
        productId: product.id,
        name: 'review run sample',
        metricIds: [judged.id, 'met_text_similarity'],
        instructions: 'Pass when the agent repeats the case word for word.',
      })
    ).body;
    sampleQueueId = queue.id;
    const { page, requests } = await signedIn(`#/review/${queue.id}`);
    // the reviewer's name, asked once
    const name = page.getByLabel('Your name');
    await name.waitFor();
    await name.fill(REVIEWER);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="reviewer-name"]', { hasText: REVIEWER }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('evp.reviewer'))).toBe(REVIEWER);
    // an empty queue says so
    await page.locator('[data-testid="done"][data-state="empty"]').waitFor();

    // a sample of 3 of the run's sessions, from the form; the first item opens
    const runOption = await page.locator('#sample-run option').allTextContents();
    expect(runOption).toEqual([expect.stringMatching(/^review run — .* \(COMPLETED, 13 completed sessions\)$/)]);
    await page.getByLabel('Sample size (1 to 1000)').fill('3');
    await page.getByLabel('Seed (optional)').fill('e2e-seed');
    await page.getByRole('button', { name: 'Add a sample' }).click();
    await page.locator('[data-testid="sample-result"]', { hasText: 'Added 3 sessions of review run' }).waitFor();
    expect(await page.locator('[data-testid="sample-result"]').textContent()).toContain('Seed: e2e-seed.');
    const items = (await http('GET', `/reviewQueues/${queue.id}/items`)).body as {
      id: string;
      sessionId: string;
      origin: string;
    }[];
    expect(items.map((i) => i.origin)).toEqual(['sample', 'sample', 'sample']);
    const sampled = items.map((i) => i.sessionId);

    // Whatever the judge said of the sampled sessions: never on the page.
    const evaluations = (await http('GET', `/evaluations?sessionIds=${sampled.join(',')}&limit=100`)).body as {
      metricId: string;
      status: string;
      score: number;
      reason: string | null;
    }[];
    expect(evaluations).toHaveLength(6);
    expect(evaluations.filter((e) => e.metricId === judged.id).map((e) => [e.status, e.reason])).toEqual(
      Array(3).fill(['SUCCESS', STUB_JUDGE_REASON]),
    );
    const reasons = [...new Set(evaluations.map((e) => e.reason).filter((r): r is string => !!r))];
    expect(reasons.length).toBeGreaterThan(1);
    const blind = async () => {
      // the whole DOM, attributes and hidden text included
      const html = await page.content();
      for (const reason of reasons) expect(html).not.toContain(reason);
      const labelling = await page.locator('[data-testid="labelling"]').textContent();
      expect(labelling).not.toMatch(/0\.75\b/); // the stub judge's score
      expect(requests.filter((r) => r.includes('/evaluations'))).toEqual([]);
    };

    const task = page.locator('[data-testid="task"]');
    await task.waitFor();
    const remaining = page.locator('[data-testid="remaining"]');
    expect(await remaining.textContent()).toBe('3 left');
    // the item as the reviewer sees it: instructions, the conversation, the expected output
    const first = await task.getAttribute('data-session-id');
    expect(sampled).toContain(first);
    const turns = (await http('GET', `/inferenceResults?sessionIds=${first}`)).body as {
      input: string;
      output: string;
    }[];
    expect(turns).toHaveLength(1);
    expect(await task.locator('[data-testid="instructions"]').textContent()).toContain(
      'Pass when the agent repeats the case word for word.',
    );
    expect(await task.locator('[data-testid="turn"] .said.user p').textContent()).toBe(turns[0]!.input);
    expect(await task.locator('[data-testid="turn"] .said.agent p').textContent()).toBe(turns[0]!.output);
    expect(await task.locator('[data-testid="expected-output"] p').textContent()).toBe(turns[0]!.input);
    expect(await task.locator('[data-testid="metric-label"] legend').allTextContents()).toEqual([
      'review helpfulness',
      expect.stringMatching(/similarity/i),
    ]);
    await blind();
    await screenshots(page, 'review-labelling');

    // Keyboard: the item's heading has the focus; 1 passes the current metric and moves on.
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('task-h');
    const metricsOf = () =>
      task
        .locator('[data-testid="metric-label"]')
        .evaluateAll((fs) => fs.map((f) => [f.getAttribute('data-score'), f.getAttribute('aria-current')]));
    await page.keyboard.press('1');
    expect(await metricsOf()).toEqual([
      ['1', null],
      ['', 'step'],
    ]);
    expect(await task.locator('[data-testid="label-value"]').first().textContent()).toBe('pass (1)');
    // typing in a reason box types, Enter there is a new line: no label, no save
    const reason = task.locator('[data-testid="label-reason"]').first();
    await reason.focus();
    await page.keyboard.type('1 and 0 typed here');
    await page.keyboard.press('Enter');
    expect(await reason.inputValue()).toBe('1 and 0 typed here\n');
    expect(await metricsOf()).toEqual([
      ['1', null],
      ['', 'step'],
    ]);
    expect(await task.getAttribute('data-session-id')).toBe(first);
    // back on the heading: 0 fails the current (second) metric, Enter saves and opens the next item
    await page.locator('#task-h').focus();
    await page.keyboard.press('0');
    expect(await metricsOf()).toEqual([
      ['1', null],
      ['0', 'step'],
    ]);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="remaining"]', { hasText: '2 left' }).waitFor();
    const second = await task.getAttribute('data-session-id');
    expect(second).not.toBe(first);
    expect(sampled).toContain(second);
    expect(await page.locator('[data-testid="saved"]').textContent()).toMatch(
      new RegExp(`^Saved for session ${first}: review helpfulness pass \\(1\\), .*similarity fail \\(0\\)\\.$`, 'i'),
    );
    const labelled = (await http('GET', `/reviewQueues/${queue.id}/items?reviewer=${encodeURIComponent(REVIEWER)}`))
      .body as {
      sessionId: string;
      status: string;
      labels: { metricId: string; score: number; reason: string | null }[];
    }[];
    expect(labelled).toHaveLength(1);
    expect(labelled[0]).toMatchObject({ sessionId: first, status: 'DONE' });
    expect(labelled[0]!.labels.map((l) => [l.metricId, l.score, l.reason])).toEqual([
      [judged.id, 1, '1 and 0 typed here'],
      ['met_text_similarity', 0, null],
    ]);
    expect(await metricsOf()).toEqual([
      ['', 'step'],
      ['', null],
    ]);
    await blind();

    // The second item with the mouse and the slider: pass, 0.70 from the arrow keys, Enter on the slider saves.
    await task.getByRole('button', { name: 'Pass (1)' }).first().click();
    const slider = task.locator('[data-testid="label-slider"]').nth(1);
    await slider.focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    expect(await task.locator('[data-testid="label-value"]').nth(1).textContent()).toBe('0.70');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="remaining"]', { hasText: '1 left' }).waitFor();
    expect(await page.locator('[data-testid="saved"]').textContent()).toMatch(
      /review helpfulness pass \(1\), .* 0\.70\.$/,
    );
    await blind();

    // The last item: Enter before every metric has a label says so and saves nothing; then 1, 1, Enter.
    const third = await task.getAttribute('data-session-id');
    await page.locator('#task-h').focus();
    await page.keyboard.press('Enter');
    await task.getByRole('alert').filter({ hasText: 'Label every metric first' }).waitFor();
    expect(await task.getByRole('alert').textContent()).toMatch(/review helpfulness, .*similarity have no label yet/i);
    expect(await task.getAttribute('data-session-id')).toBe(third);
    await page.locator('#task-h').focus();
    await page.keyboard.press('1');
    await page.keyboard.press('1');
    await page.keyboard.press('Enter');
    // 204: nothing left
    const done = page.locator('[data-testid="done"][data-state="done"]');
    await done.waitFor();
    expect(await done.locator('h3').textContent()).toBe('Nothing left to label');
    expect(await remaining.textContent()).toBe('nothing left');
    await page.locator('[data-testid="queue-progress"]', { hasText: '3 of 3 done (0 pending)' }).waitFor();
    expect(
      ((await http('GET', `/reviewQueues/${queue.id}/items?status=DONE`)).body as { sessionId: string }[])
        .map((i) => i.sessionId)
        .sort(),
    ).toEqual([first, second, third].sort());

    // each metric's agreement with people over the product's labelled sessions, as the API reckons it
    const table = page.locator('[data-testid="agreement"]');
    await poll(
      'agreement over 3 sessions',
      () => table.locator('tbody tr td:nth-child(3)').allTextContents(),
      (ns) => ns.length === 2 && ns.every((n) => n === '3'),
      10_000,
    );
    for (const metricId of [judged.id, 'met_text_similarity']) {
      const a = (await http('GET', `/metrics/${metricId}/agreement?productId=${product.id}`)).body as Agreement;
      expect(a.n).toBe(3);
      expect(a.verdict).toBe('not_enough_data');
      const row = table.locator(`tr[data-metric-id="${metricId}"]`);
      expect(await row.locator('td').allTextContents()).toEqual([
        metricId === judged.id ? 'review helpfulness' : 'text_similarity',
        `${agreementVerdictLabel(a.verdict)}${agreementVerdictHint(a)}`,
        '3',
        formatCoefficient(a),
        formatBias(a),
        formatScore(a.meanAbsoluteError),
        formatAlpha(a.reviewers),
      ]);
      const verdict = row.locator('[data-testid="agreement-verdict"]');
      expect(await verdict.textContent()).toBe('Not enough data');
      expect(await verdict.getAttribute('data-verdict')).toBe('not_enough_data');
      expect(await row.locator('.verdict-hint').textContent()).toBe('27 more labelled sessions needed (at least 30)');
    }
    // the judged metric: the judge said 0.75 each time, the reviewer 1, 1, 1
    const helpfulness = (await http('GET', `/metrics/${judged.id}/agreement?productId=${product.id}`)).body;
    expect(helpfulness.bias).toBeCloseTo(-0.25, 9);
    expect(await table.locator(`tr[data-metric-id="${judged.id}"] td`).nth(4).textContent()).toMatch(/^−0\.250 \(/);
    await blind();
    await screenshots(page, 'review-done');

    // the name is remembered: a reload goes straight to the (empty) queue as Rita
    await page.reload();
    await page.locator('[data-testid="done"][data-state="done"]').waitFor();
    expect(await page.locator('[data-testid="reviewer-name"]').textContent()).toBe(REVIEWER);
    await page.getByRole('button', { name: 'Change name' }).click();
    expect(await page.getByLabel('Your name').inputValue()).toBe(REVIEWER);
    await blind();
    await page.close();
  }, 120_000);

  it('shows each metric’s judge score beside its corrected score on the run page: the hint under 10 labels, the estimate from 10', async () => {
    const { page } = await signedIn(`#/runs/${runId}`);
    const table = page.locator('[data-testid="run-metrics"]');
    await table.waitFor();
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'Metric',
      'Judge score',
      '95% interval',
      'Corrected score (95% interval)',
      'Labels',
      'Evaluated',
      'Failed',
      'Skipped',
    ]);
    let run = (await http('GET', `/runs/${runId}`)).body;
    for (const m of run.metrics) {
      expect(m).toMatchObject({ labels: 3, corrected: null });
      const cells = await table.locator(`tr[data-metric-id="${m.metricId}"] td`).allTextContents();
      expect(cells.slice(0, 5)).toEqual([
        m.name,
        m.score.toFixed(3),
        expect.any(String),
        '—label ≥ 10 sampled sessions',
        '3',
      ]);
    }

    // 7 more sampled sessions labelled (through the API): 10 sampled labels, 3 sessions without
    const queue = (await http('GET', `/reviewQueues/${sampleQueueId}`)).body;
    expect(queue.counts).toEqual({ items: 3, pending: 0, done: 3 });
    const added = await http('POST', `/reviewQueues/${queue.id}/items`, { runId, sampleSize: 7, seed: 'more' });
    expect(added.body.added).toBe(7);
    for (const [i, item] of (added.body.items as { id: string }[]).entries()) {
      const res = await http('PUT', `/reviewQueues/${queue.id}/items/${item.id}/labels`, {
        reviewer: 'api reviewer',
        labels: [
          { metricId: judged.id, score: i % 2 },
          { metricId: 'met_text_similarity', score: i % 3 === 0 ? 0 : 1 },
        ],
      });
      expect(res.status).toBe(200);
    }
    run = (await http('GET', `/runs/${runId}`)).body;
    await page.reload();
    await table.waitFor();
    for (const m of run.metrics) {
      expect(m.labels).toBe(10);
      expect(m.corrected).toMatchObject({ labeled: 10, unlabeled: 3 });
      const text = correctedText(m.corrected);
      const cell = table.locator(`tr[data-metric-id="${m.metricId}"] [data-testid="corrected"]`);
      expect(await cell.getAttribute('data-corrected')).toBe('yes');
      expect(await cell.locator('.corrected-score').textContent()).toBe(text.score);
      expect(await cell.locator('.corrected-detail').textContent()).toBe(text.detail);
      expect(text.detail).toMatch(/^10 labelled/);
      expect(await table.locator(`tr[data-metric-id="${m.metricId}"] td`).nth(4).textContent()).toBe('10');
      expect(await table.locator(`tr[data-metric-id="${m.metricId}"] td`).nth(1).textContent()).toBe(
        m.score.toFixed(3),
      );
    }
    await screenshots(page, 'run-corrected');
    await page.close();
  });
});
