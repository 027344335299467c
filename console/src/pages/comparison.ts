import { ApiError } from '../api/resources';
import { facts, h, link, named, svg, table } from '../dom';
import {
  caseInputText,
  comparisonSentence,
  FOREST_LAYOUT,
  forestLayout,
  forestPlot,
  formatDifference,
  formatDifferenceInterval,
  formatPValue,
  formatScore,
  href,
  lastOutput,
  movedMost,
  verdictLabel,
  wordDiff,
  type CaseComparison,
  type Evaluation,
  type TestCase,
  type MetricComparison,
  type Run,
  type RunComparison,
  type Turn,
} from '../view-models';
import type { PageContext } from './context';
import { nameOf } from './runs';

/** How many cases "moved most" shows. */
export const MOVED_LIMIT = 10;
/** The forest plot's widest drawing, in pixels. */
const FOREST_MAX_WIDTH = 760;

export function verdictBadge(verdict: string): HTMLElement {
  return h('span', { class: `verdict verdict-${verdict}`, 'data-verdict': verdict }, verdictLabel(verdict));
}

/** A name cut to `max` characters (the table below has it whole). */
function clip(name: string, max: number): string {
  return name.length <= max ? name : `${name.slice(0, Math.max(1, max - 1))}…`;
}

/** The plot at `width` pixels (drawn 1:1, so its text keeps the page's size). */
function forestSvg(metrics: MetricComparison[], width: number): SVGSVGElement {
  const layout = forestLayout(width);
  const plot = forestPlot(metrics, layout);
  const bottom = plot.axisY + 4;
  return svg(
    'svg',
    {
      class: 'forest',
      'data-testid': 'forest-plot',
      viewBox: `0 0 ${plot.width} ${plot.height}`,
      width: plot.width,
      height: plot.height,
      role: 'img',
      'aria-label': `Difference per metric, this run minus the baseline, with 95% intervals. ${metrics.map(comparisonSentence).join('. ')}.`,
    },
    plot.ticks.map((t) =>
      svg(
        'g',
        { class: 'forest-tick' },
        svg('line', { x1: t.x, x2: t.x, y1: 4, y2: bottom, class: 'forest-grid' }),
        svg('text', { x: t.x, y: bottom + 16, 'text-anchor': 'middle' }, t.label),
      ),
    ),
    svg('line', {
      class: 'forest-zero',
      'data-testid': 'zero-line',
      x1: plot.zeroX,
      x2: plot.zeroX,
      y1: 4,
      y2: bottom,
    }),
    plot.rows.map((r) =>
      svg(
        'g',
        { class: `forest-row verdict-${r.verdict}`, 'data-testid': 'forest-row', 'data-metric-id': r.metricId },
        svg(
          'text',
          { x: plot.plotLeft - 10, y: r.y + 4, 'text-anchor': 'end', class: 'forest-label' },
          clip(r.name, Math.floor((layout.labelWidth - 14) / 8.5)),
        ),
        r.x1 !== null && r.x2 !== null
          ? svg('line', { class: 'forest-interval', x1: r.x1, x2: r.x2, y1: r.y, y2: r.y })
          : null,
        r.dotX !== null
          ? svg('circle', {
              class: `forest-dot${r.x1 === null ? ' forest-dot-open' : ''}`,
              cx: r.dotX,
              cy: r.y,
              r: 6,
            })
          : null,
      ),
    ),
  );
}

/**
 * Per metric a dot (the difference) on its 95% interval, around a zero line; the table below has
 * the numbers. Drawn once on the page at its container's width, and again when that changes.
 */
function forestFigure(metrics: MetricComparison[]): { figure: HTMLElement; draw: () => void } {
  const wrap = h('div', { class: 'forest-wrap', 'data-testid': 'forest' });
  const widthNow = () => Math.max(300, Math.min(FOREST_MAX_WIDTH, Math.floor(wrap.clientWidth || FOREST_LAYOUT.width)));
  let drawnAt = 0;
  const draw = () => {
    const width = widthNow();
    if (width === drawnAt) return;
    drawnAt = width;
    wrap.replaceChildren(forestSvg(metrics, width));
  };
  const observer = new ResizeObserver(() => {
    if (!wrap.isConnected) return observer.disconnect();
    draw();
  });
  observer.observe(wrap);
  const figure = h(
    'figure',
    {},
    wrap,
    h(
      'figcaption',
      {},
      'Each dot is the difference (this run minus the baseline, on the same test cases), its line the 95% interval; a line that crosses the zero line is no significant change. A hollow dot has too few pairs for an interval.',
    ),
  );
  return { figure, draw };
}

function metricsTable(comparison: RunComparison): HTMLElement {
  const unpaired = comparison.metrics.some((m) => m.onlyInBase || m.onlyInRun);
  return table(
    'Per metric',
    [
      'Metric',
      'Baseline',
      'This run',
      'Difference',
      '95% interval',
      'Verdict',
      'n (pairs)',
      'Detectable effect',
      'Adjusted p',
      ...(unpaired ? ['Unpaired'] : []),
    ],
    comparison.metrics.map((m) => [
      m.name,
      formatScore(m.baseScore),
      formatScore(m.score),
      formatDifference(m.difference),
      formatDifferenceInterval(m.confidenceInterval),
      verdictBadge(m.verdict),
      String(m.n),
      m.minimumDetectableEffect === null ? '—' : `±${m.minimumDetectableEffect.toFixed(3)}`,
      formatPValue(m.adjustedPValue),
      ...(unpaired ? [`${m.onlyInBase} only in the baseline, ${m.onlyInRun} only in this run`] : []),
    ]),
    { 'data-testid': 'comparison-metrics' },
    [],
    (i) => ({ 'data-metric-id': comparison.metrics[i]!.metricId }),
  );
}

/** What the moved cases show beside the scores: each session's turns and evaluations, each case. */
interface MovedDetail {
  turns: Map<string, Turn[]>;
  evaluations: Map<string, Evaluation[]>;
  cases: Map<string, TestCase>;
}

/** The reason a session's evaluation of the metric gave (the last turn's, when it scored turns). */
function reasonOf(
  detail: MovedDetail,
  sessionId: string,
  metricId: string,
): { score: number | null; reason: string } | null {
  const own = (detail.evaluations.get(sessionId) ?? []).filter((e) => e.metricId === metricId);
  const e = own.at(-1);
  if (!e) return null;
  return { score: e.score, reason: (e.status === 'SUCCESS' ? e.reason : (e.error ?? e.reason)) ?? '(no reason given)' };
}

function outputsColumn(title: string, sessionIds: string[], metricId: string, detail: MovedDetail): HTMLElement {
  return h(
    'div',
    { class: 'side' },
    h('h4', {}, title),
    sessionIds.length === 0
      ? h('p', { class: 'muted' }, '(no session)')
      : sessionIds.map((id) => {
          const output = lastOutput(detail.turns.get(id) ?? []);
          const reason = reasonOf(detail, id, metricId);
          return h(
            'div',
            { class: 'side-output', 'data-testid': 'output', 'data-session-id': id },
            h('p', { class: output === null ? 'muted' : 'output' }, output ?? '(no output)'),
            h(
              'p',
              { class: 'side-reason', 'data-testid': 'reason' },
              h('span', { class: 'who' }, 'Reason '),
              reason
                ? `(${formatScore(reason.score)}) ${reason.reason}`
                : h('span', { class: 'muted' }, 'no evaluation'),
            ),
            h('p', { class: 'muted' }, link(href({ page: 'session', id }), `Session ${id}`)),
          );
        }),
  );
}

/** The two outputs as one text: words only the baseline had struck through, words only this run has underlined. */
function diffView(c: CaseComparison, detail: MovedDetail): HTMLElement | null {
  const before = c.baseSessionIds[0] ? lastOutput(detail.turns.get(c.baseSessionIds[0]) ?? []) : null;
  const after = c.sessionIds[0] ? lastOutput(detail.turns.get(c.sessionIds[0]) ?? []) : null;
  if (before === null || after === null) return null;
  const parts = wordDiff(before, after);
  const changed = parts.some((p) => p.kind !== 'same');
  return h(
    'div',
    { class: 'word-diff', 'data-testid': 'word-diff' },
    h('h4', {}, 'What changed in the answer'),
    changed
      ? h(
          'p',
          { class: 'diff' },
          parts.map((p) =>
            p.kind === 'same'
              ? p.text
              : h(
                  p.kind === 'removed' ? 'del' : 'ins',
                  { title: p.kind === 'removed' ? 'only in the baseline' : 'only in this run' },
                  p.text,
                ),
          ),
        )
      : h('p', { class: 'muted' }, 'The same words in both runs.'),
    changed
      ? h(
          'p',
          { class: 'muted diff-key' },
          h('del', {}, 'struck through'),
          ': only in the baseline; ',
          h('ins', {}, 'underlined'),
          ': only in this run.',
        )
      : null,
  );
}

function movedCase(c: CaseComparison, run: Run, base: Run, detail: MovedDetail, i: number): HTMLElement {
  const headingId = `moved-${i}`;
  const testCase = detail.cases.get(c.testCaseId);
  return h(
    'article',
    {
      class: `moved-case ${c.difference < 0 ? 'moved-down' : 'moved-up'}`,
      'data-testid': 'moved-case',
      'data-test-case-id': c.testCaseId,
      'data-metric-id': c.metricId,
      'aria-labelledby': headingId,
    },
    h(
      'h3',
      { id: headingId },
      `${c.metricName}: ${formatScore(c.baseScore)} → ${formatScore(c.score)} (${formatDifference(c.difference)})`,
    ),
    h(
      'p',
      { class: 'muted case-name' },
      testCase ? named(`Case ${testCase.index}`, c.testCaseId) : named('Test case', c.testCaseId),
    ),
    h('p', { class: 'case-input' }, h('span', { class: 'who' }, 'Input '), caseInputText(c.input)),
    h(
      'p',
      { class: 'case-expected', 'data-testid': 'expected' },
      h('span', { class: 'who' }, 'Expected '),
      testCase?.expectedOutput ?? h('span', { class: 'muted' }, testCase ? '(none)' : '(not readable)'),
    ),
    h(
      'div',
      { class: 'side-by-side' },
      outputsColumn(`Baseline: ${base.name}`, c.baseSessionIds, c.metricId, detail),
      outputsColumn(`This run: ${run.name}`, c.sessionIds, c.metricId, detail),
    ),
    diffView(c, detail),
  );
}

function metricChoice(ctx: { id: string; baseRunId: string; metricId: string | null }, metrics: MetricComparison[]) {
  const at = (metricId: string | null) => href({ page: 'comparison', id: ctx.id, baseRunId: ctx.baseRunId, metricId });
  return h(
    'nav',
    { class: 'windows', 'aria-label': 'Metric of the cases' },
    h('a', { href: at(null), 'aria-current': ctx.metricId === null ? 'page' : null }, 'Every metric'),
    metrics.map((m) =>
      h('a', { href: at(m.metricId), 'aria-current': ctx.metricId === m.metricId ? 'page' : null }, m.name),
    ),
  );
}

/**
 * `#/runs/{id}/comparison?base={runId}&metric={metricId}`: the run against a baseline run of the
 * same test, paired by test case: per metric the difference with its 95% interval as a forest
 * plot, the verdict, n and the detectable effect; then the cases that moved most: input and
 * expected output, both outputs side by side with each run's reason, and a word diff of the outputs.
 */
export async function comparisonPage(
  ctx: PageContext,
  id: string,
  baseRunId: string,
  metricId: string | null,
): Promise<void> {
  const [run, base] = await Promise.all([ctx.api.getRun(id), ctx.api.getRun(baseRunId)]);
  const title = `${run.name} compared with ${base.name}`;
  let comparison: RunComparison;
  try {
    comparison = await ctx.api.runComparison(id, baseRunId);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    return ctx.show(
      title,
      h(
        'div',
        { 'data-state': 'not-ready', role: 'alert' },
        h('p', {}, `Not comparable yet (409 ${error.error}): ${error.message}.`),
        h(
          'p',
          {},
          'Both runs must have finished. ',
          link(href({ page: 'run', id: run.id, offset: 0 }), `Open ${run.name}`),
          ' or ',
          link(href({ page: 'run', id: base.id, offset: 0 }), `open ${base.name}`),
          '.',
        ),
      ),
    );
  }
  const cases = { metricIds: metricId ? [metricId] : undefined, limit: MOVED_LIMIT };
  const [testName, regressed, improved] = await Promise.all([
    run.testIds[0] ? nameOf(ctx.api.getTest, run.testIds[0]) : Promise.resolve('—'),
    ctx.api.comparisonCases(id, baseRunId, { ...cases, changed: 'regressed', sort: 'difference:asc' }),
    ctx.api.comparisonCases(id, baseRunId, { ...cases, changed: 'improved', sort: 'difference:desc' }),
  ]);
  const moved = movedMost(regressed.items, improved.items, MOVED_LIMIT);
  const sessionIds = moved.flatMap((c) => [...c.baseSessionIds, ...c.sessionIds]);
  const [turnList, evaluationList, caseList] = await Promise.all([
    ctx.api.turnsOf(sessionIds),
    ctx.api.evaluationsOf(sessionIds),
    moved.length && run.testIds.length
      ? ctx.api.testCases(run.testIds, [...new Set(moved.map((c) => c.testCaseId))])
      : Promise.resolve([]),
  ]);
  const detail: MovedDetail = {
    turns: new Map(),
    evaluations: new Map(),
    cases: new Map(caseList.map((c) => [c.id, c])),
  };
  for (const t of turnList) detail.turns.set(t.sessionId, [...(detail.turns.get(t.sessionId) ?? []), t]);
  for (const e of evaluationList)
    detail.evaluations.set(e.sessionId, [...(detail.evaluations.get(e.sessionId) ?? []), e]);
  for (const list of detail.evaluations.values())
    list.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const forest = comparison.metrics.length ? forestFigure(comparison.metrics) : null;
  ctx.show(
    title,
    facts(
      [
        ['This run', named(run.name, run.id, href({ page: 'run', id: run.id, offset: 0 }))],
        ['Baseline', named(base.name, base.id, href({ page: 'run', id: base.id, offset: 0 }))],
        ['Test', run.testIds[0] ? named(testName, run.testIds[0]) : '—'],
        ['Paired by', 'test case (each difference is over the cases scored in both runs)'],
        ['Overall verdict', verdictBadge(comparison.verdict)],
      ],
      { 'data-testid': 'comparison-facts' },
    ),
    h(
      'section',
      { 'aria-labelledby': 'difference-h' },
      h('h2', { id: 'difference-h' }, 'Difference per metric'),
      forest
        ? [forest.figure, metricsTable(comparison)]
        : h('p', { 'data-state': 'empty' }, 'No metric was scored in both runs.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'moved-h', 'data-testid': 'moved' },
      h('h2', { id: 'moved-h' }, 'Cases that moved most'),
      comparison.metrics.length > 1 ? metricChoice({ id, baseRunId, metricId }, comparison.metrics) : null,
      h(
        'p',
        { class: 'muted' },
        `Largest score changes first, of ${regressed.total} regressed and ${improved.total} improved case${improved.total === 1 ? '' : 's'}; the outputs are each session's last answer.`,
      ),
      moved.length
        ? moved.map((c, i) => movedCase(c, run, base, detail, i))
        : h('p', { 'data-state': 'empty' }, 'No case scored differently in the two runs.'),
    ),
  );
  forest?.draw();
}
