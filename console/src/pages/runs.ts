import { ApiError } from '../api/resources';
import { badge, facts, h, link, pager, table } from '../dom';
import {
  correctedText,
  formatInterval,
  formatScore,
  formatTime,
  href,
  isRunActive,
  notPassedSessionIds,
  PAGE_SIZE,
  resultColumns,
  resultRows,
  runDone,
  runThreshold,
  type Evaluation,
  type Named,
  type ResultColumn,
  type ResultRow,
  type Run,
  type RunMetric,
  type Session,
  type TestCase,
} from '../view-models';
import { sleep, type PageContext } from './context';
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

/** `#/runs`: every run with its status and progress, refreshed while any of the page runs. */
export async function runsPage(ctx: PageContext, offset: number): Promise<void> {
  for (let first = true; ; first = false) {
    const { items, total } = await ctx.api.listRuns(offset, PAGE_SIZE);
    const content =
      total === 0
        ? h(
            'p',
            { class: 'empty', 'data-state': 'empty' },
            'No runs yet. Start one with POST /runs; its progress shows here.',
          )
        : table(
            'Runs, newest first',
            ['Name', 'Status', 'Progress', 'Created'],
            items.map((r) => [
              link(href({ page: 'run', id: r.id, offset: 0 }), r.name),
              badge(r.status),
              progressView(r),
              formatTime(r.createdAt),
            ]),
            { 'data-testid': 'runs' },
          );
    const nav = pager('Run pages', offset, PAGE_SIZE, total, (o) => href({ page: 'runs', offset: o }));
    if (first) ctx.show('Runs', h('div', { id: 'runs-list' }, content), nav);
    else ctx.main.querySelector('#runs-list')?.replaceChildren(content);
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
    ['Product', names.product],
    ['Version', names.version],
    [names.tests.length === 1 ? 'Test' : 'Tests', names.tests.join(', ') || '—'],
    ['Pass threshold', formatScore(runThreshold(run))],
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

/**
 * One page of results. Every case: the page of sessions, then their evaluations, turns and cases.
 * Only the cases that did not pass: every session's evaluations first (to know which), then the
 * page's turns and cases.
 */
async function loadResults(
  ctx: PageContext,
  run: Run,
  offset: number,
  notPassed: boolean,
  caseCache: Map<string, TestCase>,
): Promise<ResultsPage> {
  const threshold = runThreshold(run);
  let sessions: Session[];
  let evaluations: Evaluation[];
  let total: number;
  if (notPassed) {
    const all = await ctx.api.allRunSessions(run.id);
    const allEvaluations = await ctx.api.evaluationsOf(all.map((s) => s.id));
    const failing = notPassedSessionIds(
      all.map((s) => s.id),
      allEvaluations,
      threshold,
    );
    total = failing.length;
    const shown = new Set(failing.slice(offset, offset + PAGE_SIZE));
    sessions = all.filter((s) => shown.has(s.id));
    evaluations = allEvaluations.filter((e) => shown.has(e.sessionId));
  } else {
    const page = await ctx.api.runSessions(run.id, offset, PAGE_SIZE);
    sessions = page.items;
    total = page.total;
    evaluations = await ctx.api.evaluationsOf(sessions.map((s) => s.id));
  }
  const missing = [
    ...new Set(sessions.map((s) => s.testCaseId).filter((c): c is string => c !== null && !caseCache.has(c))),
  ];
  const [turns, cases] = await Promise.all([
    ctx.api.turnsOf(sessions.map((s) => s.id)),
    missing.length ? ctx.api.testCases(run.testIds, missing) : Promise.resolve([]),
  ]);
  for (const c of cases) caseCache.set(c.id, c);
  return {
    rows: resultRows(sessions, [...caseCache.values()], turns, evaluations, threshold),
    columns: resultColumns(run, evaluations),
    total,
  };
}

function resultsTable(results: ResultsPage, notPassed: boolean): HTMLElement {
  if (results.rows.length === 0)
    return h(
      'p',
      { 'data-state': 'empty', class: 'empty' },
      notPassed ? 'Every scored case passed.' : 'No session created yet.',
    );
  return table(
    notPassed ? 'Cases that did not pass, one row per session' : 'Results, one row per session',
    ['Case', 'Input', "Agent's output", 'Expected output', ...results.columns.map((c) => c.name)],
    results.rows.map((r) => [
      h(
        'span',
        { class: 'session-cell' },
        link(href({ page: 'session', id: r.sessionId }), r.caseIndex === null ? 'Session' : `Case ${r.caseIndex}`),
        r.sessionStatus === 'COMPLETED' ? null : [' ', badge(r.sessionStatus)],
      ),
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

function resultsFilter(run: Run, notPassed: boolean): HTMLElement {
  return h(
    'div',
    {},
    h(
      'nav',
      { class: 'windows', 'aria-label': 'Which cases' },
      h(
        'a',
        { href: href({ page: 'run', id: run.id, offset: 0 }), 'aria-current': notPassed ? null : 'page' },
        'All cases',
      ),
      h(
        'a',
        {
          href: href({ page: 'run', id: run.id, offset: 0, notPassed: true }),
          'aria-current': notPassed ? 'page' : null,
        },
        'Cases that did not pass',
      ),
    ),
    h(
      'p',
      { class: 'muted' },
      `A case did not pass when a metric scored it below ${formatScore(runThreshold(run))}, the run's threshold. Open a score for its reason.`,
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
 * `#/runs/{id}?notPassed=1`: names, progress (live while the run runs), scores per metric with
 * intervals, the results (one row per session: input, output, expected output, each metric's
 * score with its reason), optionally only the cases that did not pass, and a run to compare with.
 */
export async function runPage(ctx: PageContext, id: string, offset: number, notPassed = false): Promise<void> {
  const facts = h('div', {});
  const progress = h('div', { 'aria-live': 'polite' });
  const metrics = h('div', {});
  const results = h('div', {});
  const nav = h('div', {});
  const compare = h('div', {});
  const caseCache = new Map<string, TestCase>();
  let names: RunNames | undefined;
  let shown = '';
  for (let first = true; ; first = false) {
    const run = await ctx.api.getRun(id);
    names ??= await runNames(ctx, run);
    facts.replaceChildren(runFacts(run, names));
    progress.replaceChildren(progressView(run));
    metrics.replaceChildren(metricsTable(run));
    const signature = resultsSignature(run);
    if (signature !== shown) {
      const page = await loadResults(ctx, run, offset, notPassed, caseCache);
      shown = signature;
      results.replaceChildren(resultsTable(page, notPassed));
      nav.replaceChildren(
        pager('Result pages', offset, PAGE_SIZE, page.total, (o) => href({ page: 'run', id, offset: o, notPassed })),
      );
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
        h(
          'section',
          { 'aria-labelledby': 'compare-h', 'data-testid': 'compare' },
          h('h2', { id: 'compare-h' }, 'Compare'),
          compare,
        ),
        h(
          'section',
          { 'aria-labelledby': 'results-h' },
          h('h2', { id: 'results-h' }, 'Results'),
          resultsFilter(run, notPassed),
          results,
          nav,
        ),
      );
    }
    if (!isRunActive(run)) return;
    await sleep(POLL_MS, ctx.signal);
  }
}
