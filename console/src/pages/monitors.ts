import { badge, breakable, h, link, named, pager, table } from '../dom';
import {
  familyNames,
  formatPercent,
  formatTime,
  href,
  MONITOR_STATUSES,
  namesById,
  PAGE_SIZE,
  spendShare,
  spendText,
  type Monitor,
  type MonitorFilters,
  type Named,
} from '../view-models';
import type { PageContext } from './context';
import { filterForm, filterSelect, nameSearch } from '../filters';

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

/** The monitors list's filters: product and status apply at once, the name search on Enter. */
function monitorFiltersForm(products: Named[], filters: MonitorFilters): HTMLElement {
  const product = filterSelect(
    'filter-product',
    'product',
    'Every product',
    products.map((p) => ({ id: p.id, text: p.name })),
    filters.productId,
  );
  const status = filterSelect(
    'filter-status',
    'status',
    'Every status',
    MONITOR_STATUSES.map((s) => ({ id: s, text: s })),
    filters.status,
  );
  const search = nameSearch(filters.q);
  const go = () => {
    const next: MonitorFilters = {};
    if (product.value) next.productId = product.value;
    if (status.value) next.status = status.value as MonitorFilters['status'];
    if (search.value.trim()) next.q = search.value.trim();
    location.hash = href({ page: 'monitors', offset: 0, filters: next });
  };
  product.addEventListener('change', go);
  status.addEventListener('change', go);
  return filterForm({
    label: 'Filter the monitors',
    testId: 'monitor-filters',
    fields: [
      ['Product', product],
      ['Status', status],
      ['Name contains', search],
    ],
    clearHref: Object.keys(filters).length ? href({ page: 'monitors', offset: 0 }) : null,
    go,
  });
}

/** A monitor's metric families by name (ids on hover). */
function familiesCell(m: Monitor, names: Map<string, string>): HTMLElement {
  return h(
    'ul',
    { class: 'plain-list', 'data-testid': 'families' },
    m.metricGroupIds.map((id) => h('li', {}, h('span', { title: id }, breakable(names.get(id) ?? id)))),
  );
}

/**
 * `#/monitors?product=…&status=…&q=…`: each monitor with its product, status, metric families by
 * name, sampling and spend against its cap, newest first, paginated, filtered by the API.
 */
export async function monitorsPage(ctx: PageContext, offset: number, filters: MonitorFilters = {}): Promise<void> {
  const [{ items, total }, products, metrics] = await Promise.all([
    ctx.api.listMonitors(offset, PAGE_SIZE, filters),
    ctx.api.allProducts(),
    ctx.api.allMetrics(),
  ]);
  const filterForm = monitorFiltersForm(products, filters);
  if (total === 0) {
    ctx.show(
      'Monitors',
      filterForm,
      h(
        'p',
        { class: 'empty', 'data-state': 'empty' },
        Object.keys(filters).length
          ? 'No monitor matches these filters.'
          : 'No monitors yet. Create one with POST /monitors; it will show here with its status and spend.',
      ),
    );
    return;
  }
  const productNames = namesById(products);
  const families = familyNames(metrics);
  const spendCells = new Map<string, HTMLElement>(items.map((m) => [m.id, h('span', { class: 'muted' }, 'loading…')]));
  const row = (m: Monitor) => [
    link(href({ page: 'monitor', id: m.id, days: 7 }), m.name),
    named(productNames.get(m.productId) ?? m.productId, m.productId),
    badge(m.status),
    familiesCell(m, families),
    formatPercent(m.samplingPercentage),
    spendCells.get(m.id)!,
    h('span', { class: 'nowrap' }, formatTime(m.createdAt)),
  ];
  ctx.show(
    'Monitors',
    filterForm,
    table(
      'Monitors, newest first',
      ['Name', 'Product', 'Status', 'Metric families', 'Sampling', 'Spend this cycle', 'Created'],
      items.map(row),
      { 'data-testid': 'monitors' },
      [],
      (i) => ({ 'data-monitor-id': items[i]!.id }),
    ),
    pager('Monitor pages', offset, PAGE_SIZE, total, (o) => href({ page: 'monitors', offset: o, filters })),
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
