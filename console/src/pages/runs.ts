import { ApiError } from '../api/resources';
import { badge, breakable, facts, h, link, named, pager, table, type HeadCell } from '../dom';
import { runVoiceView } from '../voice';
import {
  ariaSort,
  correctedText,
  formatInterval,
  formatPassRate,
  formatScore,
  formatTime,
  href,
  inCaseOrder,
  isRunActive,
  namesById,
  nextSort,
  notPassedMetrics,
  notPassedSessionIds,
  PAGE_SIZE,
  resultColumns,
  resultRows,
  RUN_STATUSES,
  runDone,
  runScoreSummary,
  sortByMetric,
  testNames,
  type Evaluation,
  type Named,
  type ResultColumn,
  type ResultRow,
  type ResultSort,
  type Run,
  type RunFilters,
  type RunMetric,
  type TestCase,
} from '../view-models';
import { sleep, type PageContext } from './context';
import { filterForm, filterSelect, nameSearch } from '../filters';
import { type Catalog, renderActions } from './run-actions';
import { scoresView } from './scores';

/** How often a page with a running run asks again. */
export const POLL_MS = 1000;

export function progressView(run: Run): HTMLElement {
  const { total, pending, running, completed, failed } = run.progress;
  return h(
    'div',
    { class: 'progress', 'data-testid': 'progress' },
    h('progress', { max: 1, value: runDone(run), 'aria-label': `${run.name}: sessions finished` }),
    h(
      'span',
      {},
      `${completed + failed} of ${total} finished — ${completed} completed, ${failed} failed, ${running} running, ${pending} pending`,
    ),
  );
}

async function readCatalog(ctx: PageContext): Promise<Catalog> {
  const [products, versions, tests, metrics] = await Promise.all([
    ctx.api.allProducts(),
    ctx.api.allVersions(),
    ctx.api.allTests(),
    ctx.api.allMetrics(),
  ]);
  return { products, versions, tests, metrics };
}

/** A run's test(s) by name: the first, then `+n`. */
function testsCell(run: Run, names: Map<string, string>): HTMLElement | string {
  const [first, ...others] = run.testIds;
  if (first === undefined) return '—';
  return h(
    'span',
    {},
    named(names.get(first) ?? first, first),
    others.length
      ? h('span', { class: 'muted', title: testNames({ testIds: others }, names).join(', ') }, ` +${others.length}`)
      : null,
  );
}

/** Each metric's score and pass rate, the first three, then `+n more` (named in its title). */
function scoresCell(run: Run): HTMLElement | string {
  const { items, more } = runScoreSummary(run);
  if (items.length === 0) return h('span', { class: 'muted' }, 'no metric scored yet');
  const rest = run.metrics
    .slice(items.length)
    .map((m) => `${m.name} ${formatScore(m.score)}`)
    .join(', ');
  return h(
    'ul',
    { class: 'run-scores', 'data-testid': 'run-scores' },
    items.map((m) =>
      h(
        'li',
        { 'data-metric-id': m.metricId },
        h('span', { class: 'metric-name' }, breakable(m.name)),
        ' ',
        h('strong', { class: 'metric-score' }, formatScore(m.score)),
        m.passRate === null ? null : h('span', { class: 'muted pass-rate' }, ` · ${formatPassRate(m.passRate)} pass`),
      ),
    ),
    more ? h('li', { class: 'muted more', title: rest }, `+${more} more`) : null,
  );
}

function statusCell(run: Run): HTMLElement {
  return h('span', { class: 'status-cell' }, badge(run.status), isRunActive(run) ? progressView(run) : null);
}

function runsTable(
  items: Run[],
  names: { products: Map<string, string>; versions: Map<string, string>; tests: Map<string, string> },
) {
  return table(
    'Runs, newest first',
    ['Name', 'Product', 'Version', 'Test', 'Status', 'Scores · pass rate', 'Created'],
    items.map((r) => [
      link(href({ page: 'run', id: r.id, offset: 0 }), r.name),
      named(names.products.get(r.productId) ?? r.productId, r.productId),
      named(names.versions.get(r.versionId) ?? r.versionId, r.versionId),
      testsCell(r, names.tests),
      statusCell(r),
      scoresCell(r),
      h('span', { class: 'nowrap' }, formatTime(r.createdAt)),
    ]),
    { 'data-testid': 'runs', class: 'runs-list' },
    [],
    (i) => ({ 'data-run-id': items[i]!.id }),
  );
}

/** The runs list's filters: product, version, test and status apply at once; the name search on Enter. */
function runFiltersForm(catalog: Catalog, filters: RunFilters): HTMLElement {
  const productName = namesById(catalog.products);
  const ofProduct = <T extends { productId: string }>(list: T[]) =>
    filters.productId ? list.filter((x) => x.productId === filters.productId) : list;
  const product = filterSelect(
    'filter-product',
    'product',
    'Every product',
    catalog.products.map((p) => ({ id: p.id, text: p.name })),
    filters.productId,
  );
  const version = filterSelect(
    'filter-version',
    'version',
    'Every version',
    ofProduct(catalog.versions).map((v) => ({
      id: v.id,
      text: `${v.name} (${productName.get(v.productId) ?? v.productId})`,
    })),
    filters.versionId,
  );
  const test = filterSelect(
    'filter-test',
    'test',
    'Every test',
    ofProduct(catalog.tests).map((t) => ({
      id: t.id,
      text: `${t.name} (${productName.get(t.productId) ?? t.productId})`,
    })),
    filters.testId,
  );
  const status = filterSelect(
    'filter-status',
    'status',
    'Every status',
    RUN_STATUSES.map((s) => ({ id: s, text: s })),
    filters.status,
  );
  const search = nameSearch(filters.q);
  const read = (): RunFilters => {
    const out: RunFilters = {};
    if (product.value) out.productId = product.value;
    if (version.value) out.versionId = version.value;
    if (test.value) out.testId = test.value;
    if (status.value) out.status = status.value as RunFilters['status'];
    if (search.value.trim()) out.q = search.value.trim();
    return out;
  };
  const go = () => {
    location.hash = href({ page: 'runs', offset: 0, filters: read() });
  };
  product.addEventListener('change', () => {
    // a version or test of another product would match nothing
    version.value = '';
    test.value = '';
    go();
  });
  for (const select of [version, test, status]) select.addEventListener('change', go);
  return filterForm({
    label: 'Filter the runs',
    testId: 'run-filters',
    fields: [
      ['Product', product],
      ['Version', version],
      ['Test', test],
      ['Status', status],
      ['Name contains', search],
    ],
    clearHref: Object.keys(filters).length ? href({ page: 'runs', offset: 0 }) : null,
    go,
  });
}

/**
 * `#/runs?product=…&version=…&test=…&status=…&q=…`: the runs (product, version, test by name,
 * status, each metric's score and pass rate), filtered and searched by the API, refreshed while
 * any of the page runs; then the forms that start a run and add a test, a product or a version.
 */
export async function runsPage(ctx: PageContext, offset: number, filters: RunFilters): Promise<void> {
  let catalog = await readCatalog(ctx);
  const list = h('div', { id: 'runs-list' });
  const nav = h('div', {});
  const actions = h('div', { id: 'run-actions' });
  const filtered = Object.keys(filters).length > 0;
  const refreshCatalog = async () => {
    catalog = await readCatalog(ctx);
  };
  renderActions(ctx, actions, () => catalog, refreshCatalog);
  for (let first = true; ; first = false) {
    const { items, total } = await ctx.api.listRuns(offset, PAGE_SIZE, filters);
    // a run of a version or test made after the catalog was read: read it again once
    const known = (id: string, list: Named[]) => list.some((x) => x.id === id);
    if (
      items.some(
        (r) =>
          !known(r.versionId, catalog.versions) ||
          !known(r.productId, catalog.products) ||
          r.testIds.some((t) => !known(t, catalog.tests)),
      ) &&
      first
    )
      await refreshCatalog();
    const names = {
      products: namesById(catalog.products),
      versions: namesById(catalog.versions),
      tests: namesById(catalog.tests),
    };
    list.replaceChildren(
      total === 0
        ? h(
            'p',
            { class: 'empty', 'data-state': 'empty' },
            filtered
              ? 'No run matches these filters.'
              : 'No runs yet. Start one below (or with POST /runs); its progress shows here.',
          )
        : runsTable(items, names),
    );
    nav.replaceChildren(
      pager('Run pages', offset, PAGE_SIZE, total, (o) => href({ page: 'runs', offset: o, filters })),
    );
    if (first)
      ctx.show(
        'Runs',
        runFiltersForm(catalog, filters),
        list,
        nav,
        h('section', { 'aria-labelledby': 'start-h', class: 'actions' }, actions),
      );
    if (!items.some(isRunActive)) return;
    await sleep(POLL_MS, ctx.signal);
  }
}

/** The judge's score corrected with sampled human labels, with its interval and what it rests on. */
function correctedCell(m: RunMetric): HTMLElement {
  const text = correctedText(m.corrected);
  return h(
    'span',
    { class: 'corrected', 'data-testid': 'corrected', 'data-corrected': m.corrected ? 'yes' : 'no' },
    h('span', { class: 'corrected-score' }, text.score),
    h('span', { class: 'muted corrected-detail' }, text.detail),
  );
}

function metricsTable(run: Run): HTMLElement {
  if (run.metrics.length === 0) return h('p', { 'data-state': 'empty' }, 'No metric scored yet.');
  return table(
    'Scores per metric: the judge’s, and corrected with human labels',
    [
      'Metric',
      'Judge score',
      '95% interval',
      'Corrected score (95% interval)',
      'Labels',
      'Evaluated',
      'Failed',
      'Skipped',
    ],
    run.metrics.map((m) => [
      m.name,
      formatScore(m.score),
      formatInterval(m.confidenceInterval),
      correctedCell(m),
      String(m.labels ?? 0),
      String(m.evaluated),
      String(m.failed),
      String(m.skipped),
    ]),
    { 'data-testid': 'run-metrics' },
    [],
    (i) => ({ 'data-metric-id': run.metrics[i]!.metricId }),
  );
}

function correctionNote(run: Run): HTMLElement {
  return h(
    'p',
    { class: 'muted' },
    'A corrected score weighs the judge’s scores with people’s labels of randomly sampled sessions of this run (at least 10). Sample them in a ',
    link(href({ page: 'review', productId: run.productId, offset: 0 }), 'review queue of this product'),
    '.',
  );
}

/** A record's name, or its id when it is gone (404) or not readable (403). */
export async function nameOf(read: (id: string) => Promise<Named>, id: string): Promise<string> {
  try {
    return (await read(id)).name;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return id;
    throw error;
  }
}

interface RunNames {
  product: string;
  version: string;
  tests: string[];
}

async function runNames(ctx: PageContext, run: Run): Promise<RunNames> {
  const [product, version, tests] = await Promise.all([
    nameOf(ctx.api.getProduct, run.productId),
    nameOf(ctx.api.getVersion, run.versionId),
    Promise.all(run.testIds.map((t) => nameOf(ctx.api.getTest, t))),
  ]);
  return { product, version, tests };
}

function runFacts(run: Run, names: RunNames): HTMLElement {
  const pairs: [string, Node | string][] = [
    ['Status', badge(run.status)],
    ['Product', named(names.product, run.productId)],
    ['Version', named(names.version, run.versionId)],
    [
      names.tests.length === 1 ? 'Test' : 'Tests',
      names.tests.length
        ? h(
            'span',
            { class: 'named-list' },
            names.tests.map((t, i) => named(t, run.testIds[i]!)),
          )
        : '—',
    ],
    ['Pass threshold', formatScore(run.threshold)],
    ['Repetitions', String(run.repetitions)],
    ['Created', formatTime(run.createdAt)],
    ['Started', formatTime(run.startedAt)],
    ['Finished', formatTime(run.finishedAt)],
  ];
  if (run.error) pairs.push(['Error', run.error]);
  return facts(pairs, { 'data-testid': 'run-facts' });
}

interface ResultsPage {
  rows: ResultRow[];
  columns: ResultColumn[];
  total: number;
}

/** What the results show: a page of them, every case or only those that did not pass, in an order. */
interface ResultsView {
  offset: number;
  notPassed: boolean;
  sort: ResultSort | undefined;
}

/**
 * One page of results, in test-case order (every session of the run, ordered by its case's index,
 * then repetition), or by one metric's score. Every case in case order: the page's evaluations,
 * turns and cases. Only the cases that did not pass, or an order by score: every session's
 * evaluations first (to know which, or the order), then the page's turns.
 */
async function loadResults(
  ctx: PageContext,
  run: Run,
  view: ResultsView,
  caseCache: Map<string, TestCase>,
): Promise<ResultsPage> {
  const threshold = run.threshold;
  const [all] = await Promise.all([
    ctx.api.allRunSessions(run.id),
    caseCache.size === 0 && run.testIds.length
      ? ctx.api.allTestCases(run.testIds).then((cases) => {
          for (const c of cases) caseCache.set(c.id, c);
        })
      : Promise.resolve(),
  ]);
  const caseIndex = new Map([...caseCache.values()].map((c) => [c.id, c.index]));
  let ids = inCaseOrder(all, caseIndex).map((s) => s.id);
  let everyEvaluation: Evaluation[] | undefined;
  if (view.notPassed || view.sort) {
    everyEvaluation = await ctx.api.evaluationsOf(ids);
    if (view.notPassed) ids = notPassedSessionIds(ids, everyEvaluation, threshold);
    if (view.sort) ids = sortByMetric(ids, everyEvaluation, view.sort);
  }
  const shownIds = ids.slice(view.offset, view.offset + PAGE_SIZE);
  const shown = new Set(shownIds);
  const byId = new Map(all.map((s) => [s.id, s]));
  const sessions = shownIds.map((id) => byId.get(id)!);
  const evaluations = everyEvaluation
    ? everyEvaluation.filter((e) => shown.has(e.sessionId))
    : await ctx.api.evaluationsOf(shownIds);
  const missing = [
    ...new Set(sessions.map((s) => s.testCaseId).filter((c): c is string => c !== null && !caseCache.has(c))),
  ];
  const [turns, cases] = await Promise.all([
    ctx.api.turnsOf(shownIds),
    missing.length ? ctx.api.testCases(run.testIds, missing) : Promise.resolve([]),
  ]);
  for (const c of cases) caseCache.set(c.id, c);
  return {
    rows: resultRows(sessions, [...caseCache.values()], turns, evaluations, threshold),
    columns: resultColumns(run, evaluations),
    total: ids.length,
  };
}

/** A header that sorts: a button (Enter or Space) in a header with `aria-sort`; the arrow is drawn by CSS. */
function sortHeader(
  label: string,
  sortKey: string | null,
  view: ResultsView,
  onSort: (sort: ResultSort | undefined, key: string) => void,
  extraClass = '',
): HeadCell {
  const current = sortKey === null ? (view.sort ? 'none' : 'ascending') : ariaSort(view.sort, sortKey);
  const next = sortKey === null ? undefined : nextSort(view.sort, sortKey);
  const describe =
    sortKey === null
      ? 'Show the rows in test-case order'
      : next
        ? `Sort by ${label}, ${next.dir === 'asc' ? 'lowest' : 'highest'} score first`
        : 'Back to test-case order';
  return {
    attrs: { 'aria-sort': current, class: `sortable ${extraClass}`.trim(), 'data-sort-key': sortKey ?? 'case' },
    content: h(
      'button',
      {
        type: 'button',
        class: 'sort',
        title: describe,
        'data-sort-key': sortKey ?? 'case',
        onclick: () => onSort(next, sortKey ?? 'case'),
      },
      breakable(label),
    ),
  };
}

function caseCell(r: ResultRow, columns: ResultColumn[], testCase: TestCase | undefined): HTMLElement {
  const failing = r.passed ? [] : notPassedMetrics(r, columns);
  const label = r.caseIndex === null ? 'Session' : `Case ${r.caseIndex}`;
  return h(
    'span',
    { class: 'session-cell' },
    testCase
      ? named(label, testCase.id, href({ page: 'session', id: r.sessionId }))
      : link(href({ page: 'session', id: r.sessionId }), label),
    r.sessionStatus === 'COMPLETED' ? null : [' ', badge(r.sessionStatus)],
    failing.length
      ? h(
          'span',
          { class: 'not-passed-metrics', 'data-testid': 'not-passed-metrics' },
          `Did not pass: ${failing.map((f) => `${f.name} (${formatScore(f.score)})`).join(', ')}`,
        )
      : null,
  );
}

function resultsTable(
  results: ResultsPage,
  view: ResultsView,
  caseCache: Map<string, TestCase>,
  onSort: (sort: ResultSort | undefined, key: string) => void,
): HTMLElement {
  if (results.rows.length === 0)
    return h(
      'p',
      { 'data-state': 'empty', class: 'empty' },
      view.notPassed ? 'Every scored case passed.' : 'No session created yet.',
    );
  const order = view.sort
    ? `sorted by ${results.columns.find((c) => c.metricId === view.sort!.metricId)?.name ?? view.sort.metricId}, ${view.sort.dir === 'asc' ? 'lowest' : 'highest'} first`
    : 'in test-case order';
  return table(
    `${view.notPassed ? 'Cases that did not pass' : 'Results'}, one row per session, ${order}`,
    [
      sortHeader('Case', null, view, onSort, 'case-col'),
      'Input',
      "Agent's output",
      'Expected output',
      ...results.columns.map((c) => sortHeader(c.name, c.metricId, view, onSort, 'metric-col')),
    ],
    results.rows.map((r) => [
      caseCell(r, results.columns, r.testCaseId ? caseCache.get(r.testCaseId) : undefined),
      r.input,
      r.output === null
        ? h('span', { class: 'muted' }, '(no output)')
        : h(
            'span',
            {},
            r.output,
            r.turnCount > 1 ? h('span', { class: 'muted' }, ` (last of ${r.turnCount} turns)`) : null,
          ),
      r.expected ?? '—',
      ...results.columns.map((c) => scoresView(r.scores[c.metricId])),
    ]),
    { 'data-testid': 'run-results', class: 'results' },
    [1, 2, 3],
    (i) => ({
      'data-session-id': results.rows[i]!.sessionId,
      'data-passed': String(results.rows[i]!.passed),
      class: results.rows[i]!.passed ? null : 'row-not-passed',
    }),
  );
}

function resultsFilter(run: Run, view: ResultsView): HTMLElement {
  const at = (notPassed: boolean) =>
    href({ page: 'run', id: run.id, offset: 0, notPassed, ...(view.sort ? { sort: view.sort } : {}) });
  return h(
    'div',
    {},
    h(
      'nav',
      { class: 'windows', 'aria-label': 'Which cases' },
      h('a', { href: at(false), 'aria-current': view.notPassed ? null : 'page' }, 'All cases'),
      h('a', { href: at(true), 'aria-current': view.notPassed ? 'page' : null }, 'Cases that did not pass'),
    ),
    h(
      'p',
      { class: 'muted' },
      `A case did not pass when a metric scored it below ${formatScore(run.threshold)}, the run's threshold. Open a score for its reason; a metric's header sorts the rows by its score.`,
    ),
  );
}

function sameTests(a: Run, b: Run): boolean {
  return [...a.testIds].sort().join(',') === [...b.testIds].sort().join(',');
}

/** A choice of the other finished runs of the same test; choosing one opens the comparison. */
async function compareForm(ctx: PageContext, run: Run): Promise<HTMLElement> {
  if (isRunActive(run)) return h('p', { class: 'muted' }, 'Comparing opens once this run has finished.');
  const testId = run.testIds[0];
  if (testId === undefined) return h('p', { 'data-state': 'empty' }, 'This run has no test to compare on.');
  const others = (await ctx.api.finishedRunsOfTest(testId)).filter((r) => r.id !== run.id && sameTests(r, run));
  if (others.length === 0)
    return h('p', { 'data-state': 'empty' }, 'No other finished run of this test to compare with yet.');
  const select = h(
    'select',
    { id: 'compare-with', name: 'base', 'aria-describedby': 'compare-help' },
    others.map((r) => h('option', { value: r.id }, `${r.name} — ${formatTime(r.createdAt)} (${r.status})`)),
  );
  const form = h(
    'form',
    { class: 'compare-form', 'data-testid': 'compare-form' },
    h('label', { for: 'compare-with' }, 'Compare with'),
    select,
    h('button', { type: 'submit' }, 'Compare'),
    h(
      'p',
      { id: 'compare-help', class: 'muted' },
      'The chosen run is the baseline: each difference is this run minus it, on the same test cases.',
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = href({ page: 'comparison', id: run.id, baseRunId: select.value, metricId: null });
  });
  return form;
}

/** What changes the results: a session finished or an evaluation landed. */
function resultsSignature(run: Run): string {
  return JSON.stringify([run.status, run.progress, run.metrics.map((m) => [m.evaluated, m.failed, m.skipped])]);
}

/**
 * `#/runs/{id}?notPassed=1&sort=met_a:asc`: names, progress (live while the run runs), scores per
 * metric with intervals, the results (one row per session in test-case order: input, output,
 * expected output, each metric's score with its reason; a metric's header sorts them by its
 * score), optionally only the cases that did not pass, and a run to compare with.
 */
export async function runPage(
  ctx: PageContext,
  id: string,
  offset: number,
  notPassed = false,
  sort?: ResultSort,
): Promise<void> {
  const facts = h('div', {});
  const progress = h('div', { 'aria-live': 'polite' });
  const metrics = h('div', {});
  const voice = h('div', {});
  const results = h('div', { 'data-testid': 'results' });
  const nav = h('div', {});
  const compare = h('div', {});
  const filter = h('div', {});
  const caseCache = new Map<string, TestCase>();
  const view: ResultsView = { offset, notPassed, sort };
  let names: RunNames | undefined;
  let shown = '';
  let latest: Run | undefined;
  const drawResults = async (run: Run) => {
    const page = await loadResults(ctx, run, view, caseCache);
    if (ctx.signal.aborted) return;
    results.replaceChildren(resultsTable(page, view, caseCache, onSort));
    filter.replaceChildren(resultsFilter(run, view));
    nav.replaceChildren(
      pager('Result pages', view.offset, PAGE_SIZE, page.total, (o) =>
        href({ page: 'run', id, offset: o, notPassed: view.notPassed, ...(view.sort ? { sort: view.sort } : {}) }),
      ),
    );
  };
  // Sorting redraws the results in place (focus stays on the header) and keeps the order in the link.
  let sorting = Promise.resolve();
  function onSort(next: ResultSort | undefined, key: string): void {
    view.sort = next;
    view.offset = 0;
    history.replaceState(
      history.state,
      '',
      href({ page: 'run', id, offset: 0, notPassed: view.notPassed, ...(next ? { sort: next } : {}) }),
    );
    results.setAttribute('aria-busy', 'true');
    sorting = sorting
      .then(() => (latest ? drawResults(latest) : undefined))
      .then(() => {
        results.removeAttribute('aria-busy');
        results.querySelector<HTMLButtonElement>(`button.sort[data-sort-key="${CSS.escape(key)}"]`)?.focus();
      })
      .catch((error: unknown) => {
        if (ctx.signal.aborted) return;
        results.removeAttribute('aria-busy');
        results.replaceChildren(
          h('p', { role: 'alert' }, `The results could not be read: ${(error as Error).message}`),
        );
      });
  }
  for (let first = true; ; first = false) {
    const run = await ctx.api.getRun(id);
    latest = run;
    names ??= await runNames(ctx, run);
    facts.replaceChildren(runFacts(run, names));
    progress.replaceChildren(progressView(run));
    metrics.replaceChildren(metricsTable(run));
    if (run.voice) voice.replaceChildren(runVoiceView(run.voice));
    const signature = resultsSignature(run);
    if (signature !== shown) {
      await sorting;
      await drawResults(run);
      shown = signature;
    }
    if (first || !isRunActive(run)) compare.replaceChildren(await compareForm(ctx, run));
    if (first) {
      ctx.show(
        run.name,
        facts,
        h('section', { 'aria-labelledby': 'progress-h' }, h('h2', { id: 'progress-h' }, 'Progress'), progress),
        h(
          'section',
          { 'aria-labelledby': 'metrics-h' },
          h('h2', { id: 'metrics-h' }, 'Scores'),
          metrics,
          correctionNote(run),
        ),
        run.voice
          ? h('section', { 'aria-labelledby': 'voice-h' }, h('h2', { id: 'voice-h' }, 'How the calls sounded'), voice)
          : null,
        h(
          'section',
          { 'aria-labelledby': 'compare-h', 'data-testid': 'compare' },
          h('h2', { id: 'compare-h' }, 'Compare'),
          compare,
        ),
        h('section', { 'aria-labelledby': 'results-h' }, h('h2', { id: 'results-h' }, 'Results'), filter, results, nav),
      );
    }
    if (!isRunActive(run)) return;
    await sleep(POLL_MS, ctx.signal);
  }
}
