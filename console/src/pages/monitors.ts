import { badge, h, link, pager, table } from '../dom';
import { formatPercent, formatTime, href, PAGE_SIZE, spendShare, spendText, type Monitor } from '../view-models';
import type { PageContext } from './context';

/** A spend cell: text plus a meter against the cap; filled once the monitor's results answer. */
export function spendCell(spend: {
  spentCredits: number;
  pendingCredits: number;
  capCredits: number | null;
}): HTMLElement {
  const share = spendShare(spend);
  return h(
    'span',
    { class: 'spend' },
    h('span', { class: 'spend-text' }, spendText(spend)),
    share === null
      ? null
      : h('meter', {
          min: 0,
          max: 1,
          value: share,
          high: 0.8,
          optimum: 0,
          'aria-label': `share of the cap used: ${Math.round(share * 100)}%`,
        }),
  );
}

/** `#/monitors`: status and spend against cap of each monitor, newest first, paginated. */
export async function monitorsPage(ctx: PageContext, offset: number): Promise<void> {
  const { items, total } = await ctx.api.listMonitors(offset, PAGE_SIZE);
  if (total === 0) {
    ctx.show(
      'Monitors',
      h(
        'p',
        { class: 'empty', 'data-state': 'empty' },
        'No monitors yet. Create one with POST /monitors; it will show here with its status and spend.',
      ),
    );
    return;
  }
  const spendCells = new Map<string, HTMLElement>(items.map((m) => [m.id, h('span', { class: 'muted' }, 'loading…')]));
  const row = (m: Monitor) => [
    link(href({ page: 'monitor', id: m.id, days: 7 }), m.name),
    badge(m.status),
    formatPercent(m.samplingPercentage),
    spendCells.get(m.id)!,
    formatTime(m.createdAt),
  ];
  ctx.show(
    'Monitors',
    table('Monitors, newest first', ['Name', 'Status', 'Sampling', 'Spend this cycle', 'Created'], items.map(row), {
      'data-testid': 'monitors',
    }),
    pager('Monitor pages', offset, PAGE_SIZE, total, (o) => href({ page: 'monitors', offset: o })),
  );
  // Spend lives in each monitor's results (current cycle); one small read per monitor on the page.
  await Promise.all(
    items.map(async (m) => {
      const cell = spendCells.get(m.id)!;
      try {
        const results = await ctx.api.monitorResults(m.id, 1);
        cell.replaceWith(spendCell(results.spend));
      } catch (error) {
        if (ctx.signal.aborted) return;
        cell.textContent = `unavailable (${(error as Error).message})`;
      }
    }),
  );
}
