import { badge, facts, h, link, pager, table } from '../dom';
import {
  formatInterval,
  formatScore,
  formatTime,
  href,
  isRunActive,
  PAGE_SIZE,
  runDone,
  type Run,
  type Session,
} from '../view-models';
import { sleep, type PageContext } from './context';

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

function metricsTable(run: Run): HTMLElement {
  if (run.metrics.length === 0) return h('p', { 'data-state': 'empty' }, 'No metric scored yet.');
  return table(
    'Scores per metric',
    ['Metric', 'Score', '95% interval', 'Evaluated', 'Failed', 'Skipped'],
    run.metrics.map((m) => [
      m.name,
      formatScore(m.score),
      formatInterval(m.confidenceInterval),
      String(m.evaluated),
      String(m.failed),
      String(m.skipped),
    ]),
    { 'data-testid': 'run-metrics' },
  );
}

function sessionsTable(sessions: Session[]): HTMLElement {
  if (sessions.length === 0) return h('p', { 'data-state': 'empty' }, 'No session created yet.');
  return table(
    "The run's sessions",
    ['Session', 'Status', 'Turns', 'Stopping reason', 'Error'],
    sessions.map((s) => [
      link(href({ page: 'session', id: s.id }), s.id),
      badge(s.status),
      String(s.turnCount),
      s.stoppingReason ?? '—',
      s.error ?? '—',
    ]),
    { 'data-testid': 'run-sessions' },
    [4],
  );
}

function runFacts(run: Run): HTMLElement {
  const pairs: [string, Node | string][] = [
    ['Status', badge(run.status)],
    ['Version', run.versionId],
    ['Tests', run.testIds.join(', ') || '—'],
    ['Created', formatTime(run.createdAt)],
    ['Started', formatTime(run.startedAt)],
    ['Finished', formatTime(run.finishedAt)],
  ];
  if (run.error) pairs.push(['Error', run.error]);
  return facts(pairs, { 'data-testid': 'run-facts' });
}

/** `#/runs/{id}`: progress (live while the run runs), scores per metric with intervals, and its sessions. */
export async function runPage(ctx: PageContext, id: string, offset: number): Promise<void> {
  const facts = h('div', {});
  const progress = h('div', { 'aria-live': 'polite' });
  const metrics = h('div', {});
  const sessions = h('div', {});
  const nav = h('div', {});
  for (let first = true; ; first = false) {
    const [run, page] = await Promise.all([ctx.api.getRun(id), ctx.api.runSessions(id, offset, PAGE_SIZE)]);
    facts.replaceChildren(runFacts(run));
    progress.replaceChildren(progressView(run));
    metrics.replaceChildren(metricsTable(run));
    sessions.replaceChildren(sessionsTable(page.items));
    nav.replaceChildren(
      pager('Session pages', offset, PAGE_SIZE, page.total, (o) => href({ page: 'run', id, offset: o })),
    );
    if (first) {
      ctx.show(
        run.name,
        facts,
        h('section', { 'aria-labelledby': 'progress-h' }, h('h2', { id: 'progress-h' }, 'Progress'), progress),
        h('section', { 'aria-labelledby': 'metrics-h' }, h('h2', { id: 'metrics-h' }, 'Scores'), metrics),
        h('section', { 'aria-labelledby': 'sessions-h' }, h('h2', { id: 'sessions-h' }, 'Sessions'), sessions, nav),
      );
    }
    if (!isRunActive(run)) return;
    await sleep(POLL_MS, ctx.signal);
  }
}
