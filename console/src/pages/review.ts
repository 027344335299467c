import { ApiError } from '../api/resources';
import { h, link, pager, table } from '../dom';
import { formatTime, href, PAGE_SIZE, queueProgress, type Metric, type Named, type ReviewQueue } from '../view-models';
import type { PageContext } from './context';

/** The most metrics a queue takes (the API's bound). */
const MAX_QUEUE_METRICS = 10;

/** A queue's progress: a bar of its DONE items and the counts in words. */
export function queueProgressView(queue: Pick<ReviewQueue, 'name' | 'counts'>): HTMLElement {
  const progress = queueProgress(queue.counts);
  return h(
    'span',
    { class: 'progress', 'data-testid': 'queue-progress' },
    h('progress', { max: 1, value: progress.share, 'aria-label': `${queue.name}: items done` }),
    h('span', {}, progress.text),
  );
}

/** The message of a failed write: the API's own words when it answered. */
export function failureText(error: unknown): string {
  return error instanceof ApiError
    ? `The API answered ${error.status} ${error.error}: ${error.message}`
    : (error as Error).message;
}

function productFilter(products: Named[], productId: string | null): HTMLElement {
  const select = h(
    'select',
    { id: 'queue-product-filter', name: 'product' },
    h('option', { value: '' }, 'Every product'),
    products.map((p) => h('option', { value: p.id, selected: p.id === productId }, p.name)),
  );
  select.addEventListener('change', () => {
    location.hash = href({ page: 'review', productId: select.value || null, offset: 0 });
  });
  return h('div', { class: 'inline-form' }, h('label', { for: 'queue-product-filter' }, 'Product'), select);
}

function queuesTable(
  queues: ReviewQueue[],
  productName: Map<string, string>,
  metricName: Map<string, string>,
): HTMLElement {
  return table(
    'Review queues, newest first',
    ['Name', 'Product', 'Metrics', 'Reviewers per item', 'Progress', 'Created'],
    queues.map((q) => [
      link(href({ page: 'reviewQueue', id: q.id }), q.name),
      productName.get(q.productId) ?? q.productId,
      q.metricIds.map((m) => metricName.get(m) ?? m).join(', '),
      String(q.reviewersPerItem),
      queueProgressView(q),
      formatTime(q.createdAt),
    ]),
    { 'data-testid': 'review-queues' },
    [],
    (i) => ({ 'data-queue-id': queues[i]!.id }),
  );
}

/** Creating a queue: product, name, 1–10 metrics, reviewers per item, instructions; opens it once created. */
function createForm(ctx: PageContext, products: Named[], metrics: Metric[], productId: string | null): HTMLElement {
  if (products.length === 0)
    return h(
      'p',
      { 'data-state': 'empty' },
      'Create a product first (POST /products): a queue holds one product’s sessions.',
    );
  const product = h(
    'select',
    { id: 'queue-product', name: 'productId', required: true },
    products.map((p) => h('option', { value: p.id, selected: p.id === productId }, p.name)),
  );
  const name = h('input', { id: 'queue-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  // The organization's own metrics first, then the predefined ones, each by name.
  const choices = metrics
    .filter((m) => m.disabledAt === null)
    .sort((a, b) => Number(a.organizationId === null) - Number(b.organizationId === null))
    .map((m) => {
      const id = `queue-metric-${m.id}`;
      return h(
        'li',
        {},
        h('input', { type: 'checkbox', id, name: 'metricIds', value: m.id }),
        h(
          'label',
          { for: id },
          m.name,
          h('span', { class: 'muted' }, m.organizationId === null ? ' (predefined)' : ''),
        ),
      );
    });
  const reviewers = h('input', {
    id: 'queue-reviewers',
    name: 'reviewersPerItem',
    type: 'number',
    min: 1,
    max: 5,
    value: 1,
    required: true,
  });
  const instructions = h('textarea', { id: 'queue-instructions', name: 'instructions', rows: 3, maxlength: 10000 });
  const error = h('p', { role: 'alert', class: 'form-error', hidden: true });
  const submit = h('button', { type: 'submit' }, 'Create the queue');
  const form = h(
    'form',
    { class: 'review-form', 'data-testid': 'create-queue', novalidate: true },
    h('label', { for: 'queue-product' }, 'Product'),
    product,
    h('label', { for: 'queue-name' }, 'Name'),
    name,
    h(
      'fieldset',
      { class: 'metric-choices' },
      h('legend', {}, `Metrics (1 to ${MAX_QUEUE_METRICS})`),
      h('ul', {}, choices),
    ),
    h('label', { for: 'queue-reviewers' }, 'Reviewers per item (1 to 5)'),
    reviewers,
    h('label', { for: 'queue-instructions' }, 'Instructions for the reviewers (optional)'),
    instructions,
    error,
    submit,
  );
  const fail = (text: string) => {
    error.textContent = text;
    error.hidden = false;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.hidden = true;
    const metricIds = [...form.querySelectorAll<HTMLInputElement>('input[name="metricIds"]:checked')].map(
      (c) => c.value,
    );
    const perItem = Number(reviewers.value);
    if (!name.value.trim()) return fail('Give the queue a name.');
    if (metricIds.length === 0 || metricIds.length > MAX_QUEUE_METRICS)
      return fail(`Pick 1 to ${MAX_QUEUE_METRICS} metrics (${metricIds.length} picked).`);
    if (!Number.isInteger(perItem) || perItem < 1 || perItem > 5) return fail('Reviewers per item is 1 to 5.');
    submit.disabled = true;
    ctx.api
      .createReviewQueue({
        productId: product.value,
        name: name.value.trim(),
        metricIds,
        reviewersPerItem: perItem,
        instructions: instructions.value.trim() || null,
      })
      .then((queue) => {
        location.hash = href({ page: 'reviewQueue', id: queue.id });
      })
      .catch((e: unknown) => {
        if (ctx.signal.aborted) return;
        submit.disabled = false;
        fail(failureText(e));
      });
  });
  return form;
}

/** `#/review?product={id}`: the review queues (of every product, or one) with their progress, and a new queue. */
export async function reviewPage(ctx: PageContext, productId: string | null, offset: number): Promise<void> {
  const [queues, products, metrics] = await Promise.all([
    ctx.api.listReviewQueues(productId, offset, PAGE_SIZE),
    ctx.api.allProducts(),
    ctx.api.allMetrics(),
  ]);
  const productName = new Map(products.map((p) => [p.id, p.name]));
  const metricName = new Map(metrics.map((m) => [m.id, m.name]));
  ctx.show(
    'Review',
    h(
      'p',
      { class: 'muted' },
      'People label sessions blind (the judge’s scores stay hidden); their labels tell how far each metric’s judge agrees with them, and sampled ones correct a run’s scores.',
    ),
    productFilter(products, productId),
    queues.total === 0
      ? h(
          'p',
          { class: 'empty', 'data-state': 'empty' },
          productId ? 'No review queue for this product yet.' : 'No review queue yet: create one below.',
        )
      : queuesTable(queues.items, productName, metricName),
    pager('Queue pages', offset, PAGE_SIZE, queues.total, (o) => href({ page: 'review', productId, offset: o })),
    h(
      'section',
      { 'aria-labelledby': 'new-queue-h' },
      h('h2', { id: 'new-queue-h' }, 'New queue'),
      createForm(ctx, products, metrics, productId),
    ),
  );
}
