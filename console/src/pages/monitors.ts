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
  const product = h(
    'select',
    { id: 'filter-product', name: 'product' },
    h('option', { value: '', selected: !filters.productId }, 'Every product'),
    products.map((p) => h('option', { value: p.id, selected: p.id === filters.productId }, p.name)),
  );
  const status = h(
    'select',
    { id: 'filter-status', name: 'status' },
    h('option', { value: '', selected: !filters.status }, 'Every status'),
    MONITOR_STATUSES.map((s) => h('option', { value: s, selected: s === filters.status }, s)),
  );
  const search = h('input', {
    id: 'filter-q',
    name: 'q',
    type: 'search',
    value: filters.q ?? '',
    maxlength: 200,
    autocomplete: 'off',
    placeholder: 'part of the name',
  });
  const go = () => {
    const next: MonitorFilters = {};
    if (product.value) next.productId = product.value;
    if (status.value) next.status = status.value as MonitorFilters['status'];
    if (search.value.trim()) next.q = search.value.trim();
    location.hash = href({ page: 'monitors', offset: 0, filters: next });
  };
  product.addEventListener('change', go);
  status.addEventListener('change', go);
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter the monitors', 'data-testid': 'monitor-filters' },
    h('span', { class: 'field' }, h('label', { for: 'filter-product' }, 'Product'), product),
    h('span', { class: 'field' }, h('label', { for: 'filter-status' }, 'Status'), status),
    h('span', { class: 'field' }, h('label', { for: 'filter-q' }, 'Name contains'), search),
    h('button', { type: 'submit' }, 'Search'),
    Object.keys(filters).length ? link(href({ page: 'monitors', offset: 0 }), 'Clear the filters') : null,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    go();
  });
  return form;
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
