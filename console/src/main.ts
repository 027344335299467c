import './style.css';
import { createApiClient } from './api/client';
import { ApiError, ApiUnreachableError, resources } from './api/resources';
import { h } from './dom';
import { forgetKey, isRemembered, type KeyStorage, type KeyStores, readKey, saveKey } from './key-store';
import { comparisonPage } from './pages/comparison';
import { monitorPage } from './pages/monitor';
import { monitorsPage } from './pages/monitors';
import { reviewPage } from './pages/review';
import { reviewQueuePage } from './pages/review-queue';
import { runPage, runsPage } from './pages/runs';
import { sessionPage } from './pages/session';
import type { PageContext } from './pages/context';
import { parseRoute, type Route } from './view-models';

/** The browser's stores; localStorage may be absent or refuse (private modes, policies). */
function browserKeyStores(): KeyStores {
  let device: KeyStorage | null;
  try {
    device = window.localStorage;
    device.getItem('evp.probe');
  } catch {
    device = null;
  }
  return { tab: window.sessionStorage, device };
}

/** The key lives in this tab (sessionStorage), and on this device (localStorage) when the user asks. */
const keys = browserKeyStores();
const main = document.getElementById('main') as HTMLElement;
const keyButton = document.getElementById('change-key') as HTMLButtonElement;
let current: AbortController | undefined;

interface ConsoleConfig {
  apiBaseUrl: string;
}

async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch(new URL('console-config.json', location.href), { cache: 'no-store' });
  if (!res.ok) throw new Error(`console-config.json answered ${res.status}`);
  const config = (await res.json()) as Partial<ConsoleConfig>;
  if (typeof config.apiBaseUrl !== 'string') throw new Error('console-config.json has no apiBaseUrl string');
  // Relative base URLs (`/api`) are read against this page, so the console and the API share the origin.
  return { apiBaseUrl: new URL(config.apiBaseUrl, location.href).href };
}

function heading(title: string): HTMLHeadingElement {
  return h('h1', { tabindex: -1, id: 'page-title' }, title);
}

/** Replaces the page: title, content, focus on the heading (screen readers hear where they are). */
function show(title: string, ...content: (Node | null)[]): void {
  document.title = `${title} · Evaluation console`;
  const h1 = heading(title);
  main.replaceChildren(h1, ...content.filter((c): c is Node => c !== null));
  h1.focus({ preventScroll: false });
}

function currentNav(route: Route): void {
  const section =
    route.page === 'monitor'
      ? 'monitors'
      : route.page === 'run' || route.page === 'comparison' || route.page === 'session'
        ? 'runs'
        : route.page === 'reviewQueue'
          ? 'review'
          : route.page;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('#site-nav a')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function keyForm(intro: Node | null): HTMLFormElement {
  const remember = h('input', {
    id: 'remember-key',
    name: 'remember',
    type: 'checkbox',
    checked: isRemembered(keys),
    disabled: keys.device === null,
  });
  const input = h('input', {
    id: 'api-key',
    name: 'apiKey',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'api-key-help',
  });
  const form = h(
    'form',
    { class: 'key-form', 'data-testid': 'key-form' },
    intro,
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h(
      'p',
      { id: 'api-key-help', class: 'muted' },
      'Starts with evk_. Sent to the API as a bearer token; kept in this browser tab only, unless you remember it on this device.',
    ),
    h(
      'span',
      { class: 'checkbox' },
      remember,
      h('label', { for: 'remember-key' }, 'Remember on this device (links open in new tabs without asking again)'),
    ),
    h('button', { type: 'submit' }, 'Use this key'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    saveKey(keys, key, remember.checked);
    if (!location.hash || location.hash === '#' || location.hash === '#/') location.hash = '#/monitors';
    void render();
  });
  return form;
}

function askForKey(intro: Node | null = null, title = 'Sign in with an API key', state = 'signed-out'): void {
  keyButton.hidden = true;
  show(title, h('div', { 'data-state': state }, keyForm(intro)));
  (main.querySelector('#api-key') as HTMLInputElement | null)?.focus();
}

/** The clear states of a failed read: wrong key (401), another organization's link (403), absent (404), anything else. */
function showFailure(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    forgetKey(keys);
    askForKey(
      h('p', { role: 'alert' }, `The API refused this key (401 ${error.error}): ${error.message}. Type a valid key.`),
      'Wrong API key',
      'unauthorized',
    );
    return;
  }
  const retry = h('button', { type: 'button', onclick: () => void render() }, 'Try again');
  if (error instanceof ApiError && error.status === 403) {
    show(
      'Not in your organization',
      h(
        'div',
        { 'data-state': 'forbidden', role: 'alert' },
        h(
          'p',
          {},
          `This link belongs to another organization, so your key may not open it (403 ${error.error}): ${error.message}.`,
        ),
        h('p', {}, h('a', { href: '#/monitors' }, 'Back to your monitors')),
      ),
    );
    return;
  }
  if (error instanceof ApiError && error.status === 404) {
    show(
      'Not found',
      h(
        'div',
        { 'data-state': 'not-found', role: 'alert' },
        h('p', {}, `Nothing here (404 ${error.error}): ${error.message}.`),
        h('p', {}, h('a', { href: '#/monitors' }, 'Back to your monitors')),
      ),
    );
    return;
  }
  const what =
    error instanceof ApiError
      ? `The API answered ${error.status} ${error.error}: ${error.message}`
      : error instanceof ApiUnreachableError
        ? error.message
        : `Unexpected error: ${(error as Error).message}`;
  show('Something went wrong', h('div', { 'data-state': 'error', role: 'alert' }, h('p', {}, what), retry));
}

let config: ConsoleConfig | undefined;

async function render(): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const route = parseRoute(location.hash);
  currentNav(route);
  const key = readKey(keys);
  if (!key) return askForKey();
  keyButton.hidden = false;
  main.setAttribute('aria-busy', 'true');
  main.replaceChildren(h('p', { role: 'status', 'data-state': 'loading', class: 'loading' }, 'Loading…'));
  try {
    config ??= await loadConfig();
    const ctx: PageContext = {
      api: resources(createApiClient({ baseUrl: config.apiBaseUrl, apiKey: key }), controller.signal),
      main,
      signal: controller.signal,
      show: (title, ...content) => {
        if (controller.signal.aborted) return;
        main.removeAttribute('aria-busy');
        show(title, ...content);
      },
    };
    switch (route.page) {
      case 'monitors':
        return await monitorsPage(ctx, route.offset, route.filters ?? {});
      case 'monitor':
        return await monitorPage(ctx, route.id, route.days);
      case 'runs':
        return await runsPage(ctx, route.offset, route.filters ?? {});
      case 'run':
        return await runPage(ctx, route.id, route.offset, route.notPassed, route.sort);
      case 'comparison':
        return await comparisonPage(ctx, route.id, route.baseRunId, route.metricId);
      case 'session':
        return await sessionPage(ctx, route.id);
      case 'review':
        return await reviewPage(ctx, route.productId, route.offset);
      case 'reviewQueue':
        return await reviewQueuePage(ctx, route.id);
      case 'unknown':
        return ctx.show(
          'Page not found',
          h(
            'p',
            { 'data-state': 'not-found' },
            `The console has no page ${route.path}. `,
            h('a', { href: '#/monitors' }, 'Open the monitors'),
          ),
        );
    }
  } catch (error) {
    if (controller.signal.aborted) return; // the user went elsewhere
    main.removeAttribute('aria-busy');
    showFailure(error);
  }
}

keyButton.addEventListener('click', () => {
  forgetKey(keys);
  current?.abort();
  askForKey();
});
(document.getElementById('skip') as HTMLButtonElement).addEventListener('click', () =>
  (main.querySelector('h1') ?? main).focus(),
);
window.addEventListener('hashchange', () => void render());
void render();
