import { h } from '../dom';
import {
  href,
  MAX_REPETITIONS,
  namesById,
  runnableTests,
  runnableVersions,
  startRunBody,
  type Metric,
  type Named,
  type Test,
  type Version,
} from '../view-models';
import type { PageContext } from './context';
import { failureText } from './review';

/** What the runs page reads once: the catalog the names, filters and forms come from. */
export interface Catalog {
  products: Named[];
  versions: Version[];
  tests: Test[];
  metrics: Metric[];
}

/** What the last action said, shown above the forms (a success as status, a failure as alert). */
interface Flash {
  text: string;
  ok: boolean;
}

/** What to preselect in the forms after an action (the record it made). */
interface Choice {
  productId?: string;
  versionId?: string;
  testId?: string;
}

interface Actions {
  ctx: PageContext;
  container: HTMLElement;
  catalog: () => Catalog;
  refresh: () => Promise<void>;
}

/** A form's error line and its submit button's state while the API answers. */
function formState(submit: HTMLButtonElement) {
  const error = h('p', { role: 'alert', class: 'form-error', hidden: true });
  return {
    error,
    fail(text: string) {
      error.textContent = text;
      error.hidden = false;
      submit.disabled = false;
    },
    busy() {
      error.hidden = true;
      submit.disabled = true;
    },
  };
}

/** The section again, with the catalog read anew, the message and the new record chosen. */
async function again(actions: Actions, flash: Flash, choice: Choice): Promise<void> {
  await actions.refresh();
  if (actions.ctx.signal.aborted) return;
  renderActions(actions.ctx, actions.container, actions.catalog, actions.refresh, flash, choice);
  actions.container.querySelector<HTMLElement>('[data-testid="action-message"]')?.focus();
}

function field(id: string, label: string, control: HTMLElement, help?: string): HTMLElement {
  return h(
    'span',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    help ? h('span', { class: 'muted help', id: `${id}-help` }, help) : null,
  );
}

/** The organization's own metrics first, then the predefined ones; none disabled or replaced. */
function metricChoices(metrics: Metric[]): HTMLElement {
  const live = metrics
    .filter((m) => m.disabledAt === null && m.legacyAt === null)
    .sort(
      (a, b) => Number(a.organizationId === null) - Number(b.organizationId === null) || a.name.localeCompare(b.name),
    );
  return h(
    'fieldset',
    { class: 'metric-choices', 'aria-describedby': 'start-metrics-help' },
    h('legend', {}, 'Metrics'),
    h(
      'p',
      { class: 'muted', id: 'start-metrics-help' },
      'None picked: the metrics linked to the test’s specification score it.',
    ),
    h(
      'ul',
      {},
      live.map((m) => {
        const id = `start-metric-${m.id}`;
        return h(
          'li',
          {},
          h('input', { type: 'checkbox', id, name: 'metricIds', value: m.id }),
          h(
            'label',
            { for: id, title: m.id },
            m.name,
            h('span', { class: 'muted' }, m.organizationId === null ? ' (predefined)' : ''),
          ),
        );
      }),
    ),
  );
}

/** Start a run: version, test, metrics, repetitions and an optional name; opens the run once created. */
function startRunForm(actions: Actions, choice: Choice): HTMLElement {
  const catalog = actions.catalog();
  const productName = namesById(catalog.products);
  const versions = runnableVersions(catalog.versions);
  if (versions.length === 0)
    return h(
      'p',
      { 'data-state': 'empty' },
      'No version can run yet: add a version with an endpoint connection (below, or POST /versions).',
    );
  const byProduct = new Map<string, typeof versions>();
  for (const v of versions) byProduct.set(v.productId, [...(byProduct.get(v.productId) ?? []), v]);
  const chosenVersion =
    versions.find((v) => v.id === choice.versionId) ?? versions.find((v) => v.productId === choice.productId);
  const version = h(
    'select',
    { id: 'start-version', name: 'versionId', required: true },
    [...byProduct].map(([productId, list]) =>
      h(
        'optgroup',
        { label: productName.get(productId) ?? productId },
        list.map((v) => h('option', { value: v.id, selected: v.id === chosenVersion?.id, title: v.id }, v.name)),
      ),
    ),
  );
  const test = h('select', { id: 'start-test', name: 'testId', required: true });
  const fillTests = (preferred?: string) => {
    const productId = versions.find((v) => v.id === version.value)?.productId ?? '';
    const tests = runnableTests(catalog.tests, productId);
    test.replaceChildren(
      ...(tests.length
        ? tests.map((t: Test) =>
            h(
              'option',
              { value: t.id, selected: t.id === preferred, title: t.id },
              `${t.name} (${t.testCaseCount} case${t.testCaseCount === 1 ? '' : 's'})`,
            ),
          )
        : [h('option', { value: '' }, 'No test of this product yet: upload one below')]),
    );
  };
  fillTests(choice.testId);
  version.addEventListener('change', () => fillTests());
  const repetitions = h('input', {
    id: 'start-repetitions',
    name: 'repetitions',
    type: 'number',
    min: 1,
    max: MAX_REPETITIONS,
    value: 1,
    required: true,
    inputmode: 'numeric',
  });
  const name = h('input', {
    id: 'start-name',
    name: 'name',
    maxlength: 200,
    autocomplete: 'off',
    placeholder: 'version · test · date (UTC)',
  });
  const submit = h('button', { type: 'submit' }, 'Start the run');
  const state = formState(submit);
  const form = h(
    'form',
    { class: 'action-form start-form', 'data-testid': 'start-run', novalidate: true },
    field('start-version', 'Version', version),
    field('start-test', 'Test', test),
    metricChoices(catalog.metrics),
    field('start-repetitions', `Repetitions (1 to ${MAX_REPETITIONS})`, repetitions, 'Each case runs this many times.'),
    field('start-name', 'Name (optional)', name),
    state.error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const metricIds = [...form.querySelectorAll<HTMLInputElement>('input[name="metricIds"]:checked')].map(
      (c) => c.value,
    );
    const request = startRunBody({
      versionId: version.value,
      testId: test.value,
      metricIds,
      repetitions: repetitions.value,
      name: name.value,
    });
    if ('error' in request) return state.fail(request.error);
    state.busy();
    actions.ctx.api
      .startRun(request.body)
      .then((run) => {
        location.hash = href({ page: 'run', id: run.id, offset: 0 });
      })
      .catch((e: unknown) => {
        if (!actions.ctx.signal.aborted) state.fail(failureText(e));
      });
  });
  return form;
}

function productSelect(id: string, catalog: Catalog, chosen: string | undefined): HTMLSelectElement {
  return h(
    'select',
    { id, name: 'productId', required: true },
    catalog.products.map((p) => h('option', { value: p.id, selected: p.id === chosen, title: p.id }, p.name)),
  );
}

const TEST_TYPES: { type: Test['type']; text: string }[] = [
  { type: 'QUALITY', text: 'QUALITY: input, expected_output' },
  { type: 'RED_TEAMING', text: 'RED_TEAMING: input' },
  { type: 'SCENARIOS', text: 'SCENARIOS: goal, user_persona' },
];

/** Upload a CSV as a test: presigned PUT, then POST /tests; says whether it imported and how many cases. */
function uploadTestForm(actions: Actions, choice: Choice): HTMLElement {
  const catalog = actions.catalog();
  if (catalog.products.length === 0)
    return h('div', { class: 'card action-card' }, h('h3', {}, 'Upload a test'), h('p', {}, 'Add a product first.'));
  const product = productSelect('upload-product', catalog, choice.productId);
  const name = h('input', { id: 'upload-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  const type = h(
    'select',
    { id: 'upload-type', name: 'type' },
    TEST_TYPES.map((t) => h('option', { value: t.type }, t.text)),
  );
  const file = h('input', { id: 'upload-file', name: 'file', type: 'file', accept: '.csv,text/csv', required: true });
  const submit = h('button', { type: 'submit' }, 'Upload the test');
  const state = formState(submit);
  const form = h(
    'form',
    { class: 'action-form card action-card', 'data-testid': 'upload-test', novalidate: true },
    h('h3', {}, 'Upload a test (CSV)'),
    field('upload-product', 'Product', product),
    field('upload-name', 'Name', name),
    field('upload-type', 'Type (the CSV’s columns)', type),
    field('upload-file', 'CSV file', file, 'A header row, then one case per row.'),
    state.error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!name.value.trim()) return state.fail('Give the test a name.');
    if (!chosen) return state.fail('Choose a CSV file.');
    state.busy();
    actions.ctx.api
      .uploadTest({
        productId: product.value,
        name: name.value.trim(),
        type: type.value as Test['type'],
        file: chosen,
        fileName: chosen.name || 'cases.csv',
      })
      .then((test) =>
        again(
          actions,
          test.status === 'SUCCESS'
            ? {
                ok: true,
                text: `Test “${test.name}” uploaded: ${test.testCaseCount} case${test.testCaseCount === 1 ? '' : 's'}. It is chosen in “Start a run”.`,
              }
            : { ok: false, text: `Test “${test.name}” is ${test.status}: ${test.error ?? 'no reason given'}.` },
          { productId: test.productId, testId: test.id },
        ),
      )
      .catch((e: unknown) => {
        if (!actions.ctx.signal.aborted) state.fail(failureText(e));
      });
  });
  return form;
}

function productForm(actions: Actions): HTMLElement {
  const name = h('input', { id: 'product-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  const submit = h('button', { type: 'submit' }, 'Add the product');
  const state = formState(submit);
  const form = h(
    'form',
    { class: 'action-form card action-card', 'data-testid': 'create-product', novalidate: true },
    h('h3', {}, 'Add a product'),
    field('product-name', 'Name', name),
    state.error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!name.value.trim()) return state.fail('Give the product a name.');
    state.busy();
    actions.ctx.api
      .createProduct(name.value.trim())
      .then((p) => again(actions, { ok: true, text: `Product “${p.name}” added.` }, { productId: p.id }))
      .catch((e: unknown) => {
        if (!actions.ctx.signal.aborted) state.fail(failureText(e));
      });
  });
  return form;
}

/** Add a version: product, name and the CONVERSATION endpoint connection its runs call. */
function versionForm(actions: Actions, choice: Choice): HTMLElement {
  const catalog = actions.catalog();
  if (catalog.products.length === 0)
    return h('div', { class: 'card action-card' }, h('h3', {}, 'Add a version'), h('p', {}, 'Add a product first.'));
  const product = productSelect('version-product', catalog, choice.productId);
  const name = h('input', { id: 'version-name', name: 'name', required: true, maxlength: 200, autocomplete: 'off' });
  const connection = h('select', { id: 'version-connection', name: 'conversationEndpointConnectionId' });
  const fillConnections = async () => {
    connection.replaceChildren(h('option', { value: '' }, 'loading…'));
    const productId = product.value;
    try {
      const list = await actions.ctx.api.conversationConnections(productId);
      if (product.value !== productId) return;
      connection.replaceChildren(
        ...list.map((c) => h('option', { value: c.id, title: `${c.id}: ${c.url}` }, c.name)),
        h('option', { value: '' }, 'None (runs cannot call the agent)'),
      );
    } catch (e) {
      if (actions.ctx.signal.aborted) return;
      connection.replaceChildren(h('option', { value: '' }, `None (connections unavailable: ${failureText(e)})`));
    }
  };
  void fillConnections();
  product.addEventListener('change', () => void fillConnections());
  const submit = h('button', { type: 'submit' }, 'Add the version');
  const state = formState(submit);
  const form = h(
    'form',
    { class: 'action-form card action-card', 'data-testid': 'create-version', novalidate: true },
    h('h3', {}, 'Add a version'),
    field('version-product', 'Product', product),
    field('version-name', 'Name', name),
    field(
      'version-connection',
      'Endpoint connection (CONVERSATION)',
      connection,
      'How runs call the agent; create one with POST /endpointConnections.',
    ),
    state.error,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!name.value.trim()) return state.fail('Give the version a name.');
    state.busy();
    actions.ctx.api
      .createVersion({
        productId: product.value,
        name: name.value.trim(),
        ...(connection.value ? { conversationEndpointConnectionId: connection.value } : {}),
      })
      .then((v) =>
        again(
          actions,
          {
            ok: true,
            text: `Version “${v.name}” added${v.conversationEndpointConnectionId ? '' : ' (without an endpoint connection, it cannot run)'}.`,
          },
          { productId: v.productId, versionId: v.id },
        ),
      )
      .catch((e: unknown) => {
        if (!actions.ctx.signal.aborted) state.fail(failureText(e));
      });
  });
  return form;
}

/**
 * The runs page's actions: start a run, then upload a test, add a product, add a version. After an
 * addition the catalog is read again and the forms drawn anew with the new record chosen.
 */
export function renderActions(
  ctx: PageContext,
  container: HTMLElement,
  catalog: () => Catalog,
  refresh: () => Promise<void>,
  flash?: Flash,
  choice: Choice = {},
): void {
  const actions: Actions = { ctx, container, catalog, refresh };
  const children: (Node | null)[] = [
    h('h2', { id: 'start-h' }, 'Start a run'),
    flash
      ? h(
          'p',
          {
            class: flash.ok ? 'saved' : 'form-error',
            role: flash.ok ? 'status' : 'alert',
            tabindex: -1,
            'data-testid': 'action-message',
          },
          flash.text,
        )
      : null,
    startRunForm(actions, choice),
    h('h2', { id: 'catalog-h' }, 'Add a test, a product or a version'),
    h(
      'div',
      { class: 'action-cards' },
      uploadTestForm(actions, choice),
      productForm(actions),
      versionForm(actions, choice),
    ),
  ];
  container.replaceChildren(...children.filter((c): c is Node => c !== null));
}
