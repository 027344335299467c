import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, WIDTHS } from '../support/browser.js';

/**
 * The console's stylesheet against the text its pages put in running prose: ids are 30 characters
 * without a break, and an id of wide letters is wider than a phone's line. The pages' own tests
 * meet random ids; this one meets the widest, in Chromium, at each width the console must work at.
 */
const STYLESHEET = readFileSync(join(import.meta.dirname, '..', '..', 'console', 'src', 'style.css'), 'utf8');
const WIDE_ID = `met_01${'W'.repeat(24)}`;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the console stylesheet', () => {
  it('breaks a long id in a heading, a paragraph or a list item rather than making the page scroll sideways', async () => {
    const page = await browser.newPage();
    await page.setContent(
      `<!doctype html><html><head><style>${STYLESHEET}</style></head><body><main>` +
        `<h1>${WIDE_ID}</h1>` +
        `<section><h2>Runs of ${WIDE_ID}</h2><h3>Session ${WIDE_ID}</h3></section>` +
        `<section><h2>Markers</h2><ul><li><time>2026-11-28 16:59 UTC</time> — New revision of helpfulness: ${WIDE_ID}</li></ul></section>` +
        `<section class="card"><p><strong>is_json</strong> — score 0.500 from 32 sessions; ${WIDE_ID}</p></section>` +
        '</main></body></html>',
    );
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(Number(overflow), `${w.name} (${w.width} px)`).toBeLessThanOrEqual(0);
    }
    // The id is still whole text: broken across lines by the layout, not cut.
    expect(await page.locator('li').textContent()).toContain(WIDE_ID);
    await page.close();
  });
});
