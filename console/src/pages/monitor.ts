import { scoreChart } from '../chart';
import { badge, facts, h, link, named, table } from '../dom';
import {
  alertRuleText,
  familyMarkers,
  familyName,
  familySeries,
  formatDay,
  formatInterval,
  formatPercent,
  formatScore,
  formatTime,
  href,
  RESULT_DAYS,
  sessionScores,
  type Alert,
  type AlertRule,
  type Monitor,
  type MonitorResults,
  type ResultsFamily,
  type ScoreCell,
  type ScorePoint,
} from '../view-models';
import type { PageContext } from './context';
import { spendCell } from './monitors';
import { nameOf } from './runs';
import { scoresView } from './scores';

function pointText(p: ScorePoint): string {
  const base = `score ${formatScore(p.score)} from ${p.scoredSessions} scored session${p.scoredSessions === 1 ? '' : 's'}`;
  return p.collectingData
    ? `${base}, collecting data (interval from 30 sessions)`
    : `${base}, 95% interval ${formatInterval(p.confidenceInterval)}`;
}

function filterText(query: string | null, target: string | null): string {
  return query === null ? 'none' : `${query} (${target?.toLowerCase() ?? 'either'})`;
}

function familySection(_results: MonitorResults, family: ResultsFamily): { section: HTMLElement; chart: HTMLElement } {
  const chart = h('div', { class: 'chart', 'data-testid': 'chart', 'data-metric-group-id': family.metricGroupId });
  const rows = family.buckets.map((b) => [
    formatDay(b.bucket),
    String(b.scoredSessions),
    formatScore(b.score),
    b.confidenceInterval ? formatScore(b.confidenceInterval.lower) : '—',
    b.confidenceInterval ? formatScore(b.confidenceInterval.upper) : '—',
    b.scoredSessions === 0 ? 'no sessions' : b.collectingData ? 'collecting data' : 'yes',
  ]);
  const section = h(
    'section',
    {
      class: 'family',
      'data-testid': 'family',
      'data-metric-group-id': family.metricGroupId,
      'aria-labelledby': `family-${family.metricGroupId}`,
    },
    h('h3', { id: `family-${family.metricGroupId}` }, family.name),
    h('p', { class: 'headline' }, `Over the window: ${pointText(family.headline)}.`),
    h(
      'figure',
      {},
      chart,
      h(
        'figcaption',
        {},
        `Daily score of ${family.name} with its 95% interval band; hollow rings mark days still collecting data, vertical lines mark revisions (dashed) and sampling changes (dotted).`,
      ),
    ),
    h(
      'details',
      {},
      h('summary', {}, `Daily values of ${family.name}`),
      table(
        `Daily values of ${family.name}`,
        ['Day (UTC)', 'Scored sessions', 'Score', '95% lower', '95% upper', 'Interval'],
        rows,
        { 'data-testid': 'buckets' },
      ),
    ),
  );
  return { section, chart };
}

/**
 * `#/monitors/{id}?days=N`: open alerts and alert rules, the results route drawn as charts,
 * markers and spend, and the sessions with each scored one's scores.
 */
export async function monitorPage(ctx: PageContext, id: string, days: number): Promise<void> {
  const [monitor, results, alerts, rules] = await Promise.all([
    ctx.api.getMonitor(id),
    ctx.api.monitorResults(id, days),
    ctx.api.monitorOpenAlerts(id),
    ctx.api.monitorAlertRules(id),
  ]);
  const [product, version] = await Promise.all([
    nameOf(ctx.api.getProduct, monitor.productId),
    monitor.versionId ? nameOf(ctx.api.getVersion, monitor.versionId) : Promise.resolve(null),
  ]);
  const scores = sessionScores(await ctx.api.evaluationsOf(results.sessions.scored.map((s) => s.sessionId)), id);
  const windows = h(
    'nav',
    { class: 'windows', 'aria-label': 'Results window' },
    RESULT_DAYS.map((d) =>
      h('a', { href: href({ page: 'monitor', id, days: d }), 'aria-current': d === days ? 'page' : null }, `${d} days`),
    ),
  );
  const families = results.metrics.map((f) => familySection(results, f));
  const worst = results.worstMetric;
  const markers = [
    ...results.markers.metricRevisions.map((m) => ({ at: m.at, text: `New revision of ${m.name}: ${m.metricId}` })),
    ...results.markers.samplingChanges.map((s) => ({
      at: s.at,
      text: `Sampling set to ${formatPercent(s.samplingPercentage)}`,
    })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  ctx.show(
    monitor.name,
    monitorFacts(monitor, results, { product, version }),
    alertsSection(results, alerts),
    windows,
    h(
      'section',
      { 'aria-labelledby': 'worst-h', class: 'card', 'data-testid': 'worst-metric' },
      h('h2', { id: 'worst-h' }, 'Worst metric'),
      worst
        ? h('p', {}, h('strong', {}, worst.name), ` — ${pointText(worst)}`)
        : h('p', { 'data-state': 'empty' }, 'No family scored in this window yet.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'markers-h', 'data-testid': 'markers' },
      h('h2', { id: 'markers-h' }, 'Markers'),
      markers.length
        ? h(
            'ul',
            {},
            markers.map((m) => h('li', {}, h('time', { datetime: m.at }, formatTime(m.at)), ` — ${m.text}`)),
          )
        : h('p', { 'data-state': 'empty' }, 'No revision or sampling change in this window.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'families-h' },
      h(
        'h2',
        { id: 'families-h' },
        `Scores, last ${days} day${days === 1 ? '' : 's'} (${formatDay(results.range.from)} to ${formatDay(results.range.to)})`,
      ),
      families.length
        ? families.map((f) => f.section)
        : h('p', { 'data-state': 'empty' }, 'This monitor binds no metric family.'),
    ),
    alertRulesSection(id, results, rules),
    sessionsSection(results, scores),
  );
  const range = { from: Date.parse(results.range.from) / 1000, to: Date.parse(results.range.to) / 1000 };
  results.metrics.forEach((family, i) => {
    scoreChart(
      families[i]!.chart,
      familySeries(family),
      familyMarkers(results, family.metricGroupId),
      range,
      family.name,
    );
  });
}

function monitorFacts(
  monitor: Monitor,
  results: MonitorResults,
  names: { product: string; version: string | null },
): HTMLElement {
  return facts([
    ['Status', badge(monitor.status)],
    ['Product', named(names.product, monitor.productId)],
    ['Sampling', formatPercent(monitor.samplingPercentage)],
    [
      'Version',
      monitor.versionId ? named(names.version ?? monitor.versionId, monitor.versionId) : 'every version of the product',
    ],
    ['Filter', filterText(monitor.filterQuery, monitor.filterTarget)],
    ['Exclude', filterText(monitor.excludeQuery, monitor.excludeTarget)],
    ['Spend this cycle', spendCell(results.spend)],
    ['Cycle started', results.spend.cycleStart ? formatTime(results.spend.cycleStart) : 'unlimited credits (no cycle)'],
  ]);
}

function alertsSection(results: MonitorResults, alerts: Alert[]): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'alerts-h', class: alerts.length ? 'card card-alert' : 'card' },
    h('h2', { id: 'alerts-h' }, `Open alerts (${alerts.length})`),
    alerts.length
      ? table(
          'Open alerts, newest first',
          ['Metric', 'Score', 'Fires when', 'Scored sessions', 'Opened'],
          alerts.map((a) => [
            familyName(results, a.metricGroupId),
            formatScore(a.score),
            alertRuleText(a),
            String(a.scoredSessions),
            formatTime(a.openedAt),
          ]),
          { 'data-testid': 'open-alerts' },
        )
      : h('p', { 'data-state': 'empty' }, 'No open alert.'),
  );
}

function alertRulesSection(id: string, results: MonitorResults, rules: AlertRule[]): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'rules-h' },
    h('h2', { id: 'rules-h' }, `Alert rules (${rules.length})`),
    rules.length
      ? table(
          'Alert rules',
          ['Metric', 'Fires when', 'State', 'Created'],
          rules.map((r) => [
            familyName(results, r.metricGroupId),
            alertRuleText(r),
            r.openAlertId ? badge('OPEN') : 'no open alert',
            formatTime(r.createdAt),
          ]),
          { 'data-testid': 'alert-rules' },
        )
      : h(
          'p',
          { 'data-state': 'empty' },
          `No alert rule. Create one with POST /monitors/${id}/alertRules; its alerts show above.`,
        ),
  );
}

function sessionsSection(results: MonitorResults, scores: Map<string, Map<string, ScoreCell[]>>): HTMLElement {
  const { scored, waiting } = results.sessions;
  return h(
    'section',
    { 'aria-labelledby': 'sessions-h' },
    h('h2', { id: 'sessions-h' }, 'Sessions'),
    scored.length
      ? table(
          `Scored sessions, newest first (${scored.length})`,
          ['Session', 'Scored at', 'Turns when scored', 'First user turn', ...results.metrics.map((m) => m.name)],
          scored.map((s) => [
            link(href({ page: 'session', id: s.sessionId }), s.sessionId),
            h('span', { class: 'nowrap' }, formatTime(s.evaluatedAt)),
            s.settledAtTurn === null ? '—' : String(s.settledAtTurn),
            s.description,
            ...results.metrics.map((m) => scoresView(scores.get(s.sessionId)?.get(m.metricGroupId))),
          ]),
          { 'data-testid': 'scored-sessions' },
          [3],
          (i) => ({ 'data-session-id': scored[i]!.sessionId }),
        )
      : h('p', { 'data-state': 'empty' }, 'No session scored in this window.'),
    waiting.length
      ? table(
          `Waiting sessions (${waiting.length})`,
          ['Session', 'Last turn', 'Minutes since', 'First user turn'],
          waiting.map((s) => [
            link(href({ page: 'session', id: s.sessionId }), s.sessionId),
            formatTime(s.lastTurnAt),
            String(s.minutesSinceLastTurn),
            s.description,
          ]),
          { 'data-testid': 'waiting-sessions' },
          [3],
        )
      : h('p', { 'data-state': 'empty' }, 'No session is waiting to be scored.'),
  );
}
