import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { jsonClient } from './http-client.js';

/** Debian's `chromium` package (`.ci/run` installs it when missing); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = resolve(import.meta.dirname, '..', '..', 'test-results', 'console');
/** The two widths the console must work at. */
export const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`,
    );
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

/** Full-page screenshots of the current page at 1280 and 390 px, under test-results/console/. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  for (const w of WIDTHS) {
    await page.setViewportSize({ width: w.width, height: w.height });
    // uPlot follows its container's width (ResizeObserver), a frame or more after the resize, and
    // later on a loaded machine: wait until the page fits (at most 5 s), then check it does.
    // Runs in the page (the DOM types are not in this project's lib).
    const overflowing = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
    await waitInPage(page, `${overflowing} <= 1`, 5_000);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${w.width}.png`), fullPage: true });
    const overflow = await page.evaluate(overflowing);
    if (Number(overflow) > 1) throw new Error(`${name} scrolls sideways at ${w.width} px (${overflow} px too wide)`);
  }
  if (original) await page.setViewportSize(original);
}

/**
 * Evaluates an expression in the page every 20 ms until it is truthy (true) or `timeoutMs` has
 * passed (false). Playwright's waitForFunction polls with the page's `eval`, which the console's
 * Content-Security-Policy forbids: every poll after the first threw an EvalError in the page. Each
 * evaluation here comes from the DevTools protocol, which the policy does not govern.
 */
export async function waitInPage(page: Page, expression: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(expression)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** JSON over HTTP with a bearer key: `{status, body, total}` (X-Total-Count). */
export const httpWithKey = jsonClient;
