import { facts, h, link, table } from '../dom';
import {
  agreementCoefficient,
  agreementVerdictHint,
  agreementVerdictLabel,
  decideLabel,
  formatAlpha,
  formatBias,
  formatCoefficient,
  formatLabelScore,
  formatScore,
  formatTime,
  href,
  labelsToSubmit,
  newLabelState,
  remainingText,
  reviewerName,
  reviewShortcut,
  setLabelReason,
  setLabelScore,
  type Agreement,
  type KeyTarget,
  type LabelState,
  type Metric,
  type ReviewQueue,
  type ReviewTask,
  type Run,
} from '../view-models';
import type { PageContext } from './context';
import { failureText, queueProgressView } from './review';
import { nameOf } from './runs';

/** The reviewer's name lives in this browser (localStorage), asked once, changeable. */
export const REVIEWER_ITEM = 'evp.reviewer';
/** How long "saved" stays on screen. */
const SAVED_MS = 8000;

function storedReviewer(): string | null {
  try {
    return reviewerName(localStorage.getItem(REVIEWER_ITEM) ?? '');
  } catch {
    return null;
  }
}

/** What a key was pressed on (see reviewShortcut). */
function keyTarget(target: EventTarget | null): KeyTarget {
  if (!(target instanceof HTMLElement)) return 'other';
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement)
    return 'text';
  if (target instanceof HTMLInputElement) {
    if (target.type === 'range') return 'other';
    return ['button', 'submit', 'reset', 'checkbox', 'radio'].includes(target.type) ? 'button' : 'text';
  }
  return target.closest('a[href], button, summary') ? 'button' : 'other';
}

/** The conversation as the reviewer sees it: each turn's input and output, retrieval context collapsed. */
function conversation(task: ReviewTask): HTMLElement {
  if (task.turns.length === 0) return h('p', { 'data-state': 'empty' }, 'This session has no turn.');
  return h(
    'ol',
    { class: 'turns', 'data-testid': 'turns' },
    [...task.turns]
      .sort((a, b) => a.index - b.index)
      .map((t) =>
        h(
          'li',
          { class: 'turn', 'data-testid': 'turn' },
          h('p', { class: 'turn-meta' }, `Turn ${t.index}`),
          h('div', { class: 'said user' }, h('span', { class: 'who' }, 'User'), h('p', {}, t.input)),
          h(
            'div',
            { class: 'said agent' },
            h('span', { class: 'who' }, 'Agent'),
            h('p', {}, t.output ?? '(no output)'),
          ),
          t.retrievalContext.length
            ? h(
                'details',
                { 'data-testid': 'retrieval-context' },
                h('summary', {}, `Retrieval context (${t.retrievalContext.length})`),
                h(
                  'ul',
                  {},
                  t.retrievalContext.map((c) => h('li', {}, c)),
                ),
              )
            : null,
        ),
      ),
  );
}

function contextText(context: unknown): string {
  return typeof context === 'string' ? context : JSON.stringify(context, null, 2);
}

function verdictView(a: Agreement): HTMLElement {
  return h(
    'div',
    {},
    h(
      'span',
      { class: `verdict agreement-${a.verdict}`, 'data-verdict': a.verdict, 'data-testid': 'agreement-verdict' },
      agreementVerdictLabel(a.verdict),
    ),
    h('p', { class: 'muted verdict-hint' }, agreementVerdictHint(a)),
  );
}

type AgreementRow = { metricId: string; agreement: Agreement } | { metricId: string; error: string };

function agreementTable(rows: AgreementRow[], metricName: (id: string) => string): HTMLElement {
  return table(
    'Agreement of each metric’s judge with people, over this product’s labelled sessions',
    ['Metric', 'Verdict', 'n', 'κ or ρ (95% interval)', 'Bias, judge − people', 'Mean abs. error', 'Reviewers’ α'],
    rows.map((r) => {
      if ('error' in r) return [metricName(r.metricId), h('span', { role: 'alert' }, r.error), '', '', '', '', ''];
      const a = r.agreement;
      return [
        metricName(r.metricId),
        verdictView(a),
        String(a.n),
        h('span', { title: agreementCoefficient(a).name }, formatCoefficient(a)),
        formatBias(a),
        formatScore(a.meanAbsoluteError),
        formatAlpha(a.reviewers),
      ];
    }),
    { 'data-testid': 'agreement' },
    [],
    (i) => ({ 'data-metric-id': rows[i]!.metricId }),
  );
}

/**
 * `#/review/{queueId}`: label one item after another (blind: the task never carries the judge's
 * scores), the agreement of each metric's judge with people, and a sample of a run to add.
 */
export async function reviewQueuePage(ctx: PageContext, id: string): Promise<void> {
  let queue = await ctx.api.getReviewQueue(id);
  const [product, metrics, runs] = await Promise.all([
    nameOf(ctx.api.getProduct, queue.productId),
    ctx.api.metricsByIds(queue.metricIds),
    ctx.api.finishedRunsOfProduct(queue.productId),
  ]);
  const metricsById = new Map<string, Metric>(metrics.map((m) => [m.id, m]));
  const metricName = (metricId: string) => metricsById.get(metricId)?.name ?? metricId;

  const progress = h('div', {}, queueProgressView(queue));
  const reviewerBar = h('div', { class: 'reviewer-bar', 'data-testid': 'reviewer' });
  const remaining = h('p', { class: 'remaining', 'data-testid': 'remaining', 'aria-live': 'polite' });
  const body = h('div', { 'data-testid': 'label-body' });
  const saved = h('p', { class: 'saved', role: 'status', 'data-testid': 'saved' });
  const agreementBox = h('div', {}, h('p', { class: 'loading' }, 'Loading…'));

  let reviewer = storedReviewer();
  let task: ReviewTask | null = null;
  let state: LabelState = { drafts: [], current: 0 };
  let busy = false;
  let savedTimer: ReturnType<typeof setTimeout> | undefined;
  /** The shown item's form, its fieldsets and its error line. */
  let form: HTMLFormElement | null = null;
  let fieldsets: HTMLFieldSetElement[] = [];
  let formError: HTMLElement | null = null;

  const refreshQueue = async () => {
    try {
      queue = await ctx.api.getReviewQueue(id);
      progress.replaceChildren(queueProgressView(queue));
    } catch {
      // the progress stays as it was; the next read tries again
    }
  };

  /** The latest agreement read: an older answer arriving late is dropped. */
  let agreementRead = 0;
  const refreshAgreement = async () => {
    const read = ++agreementRead;
    const rows = await Promise.all(
      queue.metricIds.map(async (metricId): Promise<AgreementRow> => {
        try {
          return { metricId, agreement: await ctx.api.agreement(metricId, queue.productId) };
        } catch (error) {
          return { metricId, error: failureText(error) };
        }
      }),
    );
    if (ctx.signal.aborted || read !== agreementRead) return;
    agreementBox.replaceChildren(agreementTable(rows, metricName));
  };

  /** Draws the drafts: the current metric, pressed buttons, sliders and what each label says. */
  const paint = () => {
    state.drafts.forEach((d, i) => {
      const f = fieldsets[i];
      if (!f) return;
      const current = i === state.current;
      f.classList.toggle('current', current);
      if (current) f.setAttribute('aria-current', 'step');
      else f.removeAttribute('aria-current');
      f.dataset.score = d.score === null ? '' : String(d.score);
      f.querySelector('.pass')?.setAttribute('aria-pressed', String(d.score === 1));
      f.querySelector('.fail')?.setAttribute('aria-pressed', String(d.score === 0));
      const slider = f.querySelector<HTMLInputElement>('input[type="range"]');
      if (slider && d.score !== null && Number(slider.value) !== d.score) slider.value = String(d.score);
      slider?.setAttribute('aria-valuetext', formatLabelScore(d.score));
      const value = f.querySelector('output');
      if (value) value.textContent = formatLabelScore(d.score);
    });
  };

  const showFormError = (text: string | null) => {
    if (!formError) return;
    formError.textContent = text ?? '';
    formError.hidden = text === null;
  };

  const metricFieldset = (index: number): HTMLFieldSetElement => {
    const d = state.drafts[index]!;
    const sliderId = `label-score-${index}`;
    const reasonId = `label-reason-${index}`;
    const slider = h('input', {
      id: sliderId,
      type: 'range',
      min: 0,
      max: 1,
      step: 0.05,
      value: 0.5,
      'data-testid': 'label-slider',
    });
    slider.addEventListener('input', () => {
      state = setLabelScore(state, index, Number(slider.value));
      showFormError(null);
      paint();
    });
    const reason = h('textarea', { id: reasonId, rows: 2, maxlength: 10000, 'data-testid': 'label-reason' });
    reason.addEventListener('input', () => {
      state = setLabelReason(state, index, reason.value);
    });
    const decide = (score: 0 | 1) => () => {
      state = decideLabel(state, index, score);
      showFormError(null);
      paint();
    };
    return h(
      'fieldset',
      {
        class: 'metric-label',
        'data-testid': 'metric-label',
        'data-metric-id': d.metricId,
        'data-index': index,
      },
      h('legend', {}, d.name),
      d.description ? h('p', { class: 'muted metric-description' }, d.description) : null,
      h(
        'div',
        { class: 'decide' },
        h('button', { type: 'button', class: 'pass', 'aria-pressed': 'false', onclick: decide(1) }, 'Pass (1)'),
        h('button', { type: 'button', class: 'fail', 'aria-pressed': 'false', onclick: decide(0) }, 'Fail (0)'),
        h('label', { for: sliderId, class: 'slider-label' }, 'Score 0–1'),
        slider,
        h('output', { for: sliderId, 'data-testid': 'label-value' }, formatLabelScore(d.score)),
      ),
      h('label', { for: reasonId }, 'Reason (optional)'),
      reason,
    );
  };

  const taskView = (t: ReviewTask): HTMLElement => {
    state = newLabelState(t);
    fieldsets = state.drafts.map((_, i) => metricFieldset(i));
    formError = h('p', { role: 'alert', class: 'form-error', hidden: true });
    form = h(
      'form',
      { class: 'label-form', 'data-testid': 'label-form', novalidate: true },
      fieldsets,
      formError,
      h('div', { class: 'label-actions' }, h('button', { type: 'submit' }, 'Save and next')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void submit();
    });
    const view = h(
      'div',
      { class: 'task', 'data-testid': 'task', 'data-item-id': t.itemId, 'data-session-id': t.sessionId },
      h('h3', { id: 'task-h', tabindex: -1 }, `Session ${t.sessionId}`),
      t.instructions
        ? h(
            'div',
            { class: 'instructions', 'data-testid': 'instructions' },
            h('h4', {}, 'Instructions'),
            h('p', {}, t.instructions),
          )
        : null,
      h('h4', {}, 'Conversation'),
      conversation(t),
      t.expectedOutput !== null
        ? h(
            'div',
            { class: 'said expected', 'data-testid': 'expected-output' },
            h('span', { class: 'who' }, 'Expected'),
            h('p', {}, t.expectedOutput),
          )
        : null,
      t.context !== null && t.context !== undefined
        ? h(
            'div',
            { class: 'task-context', 'data-testid': 'context' },
            h('h4', {}, 'Context'),
            h('pre', {}, contextText(t.context)),
          )
        : null,
      h('h4', {}, 'Your labels'),
      form,
      h(
        'p',
        { class: 'muted keys' },
        h('kbd', {}, '1'),
        ' pass and ',
        h('kbd', {}, '0'),
        ' fail the current metric (then the next one), ',
        h('kbd', {}, 'Enter'),
        ' saves and opens the next item (',
        h('kbd', {}, 'Ctrl'),
        '+',
        h('kbd', {}, 'Enter'),
        ' from a reason box). Typing in a reason box never labels.',
      ),
    );
    paint();
    return view;
  };

  const doneView = (): HTMLElement =>
    queue.counts.items === 0
      ? h(
          'div',
          { class: 'empty', 'data-state': 'empty', 'data-testid': 'done' },
          h('h3', { tabindex: -1 }, 'No item yet'),
          h('p', {}, 'This queue has no session to label yet: add a sample of a run below.'),
        )
      : h(
          'div',
          { class: 'empty', 'data-state': 'done', 'data-testid': 'done' },
          h('h3', { tabindex: -1 }, 'Nothing left to label'),
          h(
            'p',
            {},
            `Every item of this queue is labelled by you (${reviewer}) or by enough reviewers. Add a sample below, or `,
            link(href({ page: 'review', productId: null, offset: 0 }), 'open another queue'),
            '.',
          ),
        );

  const failed = (error: unknown, retry: () => void): HTMLElement =>
    h(
      'div',
      { role: 'alert', 'data-state': 'error' },
      h('p', {}, failureText(error)),
      h('button', { type: 'button', onclick: retry }, 'Try again'),
    );

  const loadNext = async (): Promise<void> => {
    if (!reviewer) return;
    task = null;
    form = null;
    body.replaceChildren(h('p', { class: 'loading', role: 'status' }, 'Loading the next item…'));
    try {
      const next = await ctx.api.nextReviewTask(id, reviewer);
      if (ctx.signal.aborted) return;
      if (next === null) {
        remaining.textContent = remainingText(0);
        await refreshQueue();
        body.replaceChildren(doneView());
      } else {
        task = next;
        remaining.textContent = remainingText(next.remaining);
        body.replaceChildren(taskView(next));
      }
      body.querySelector<HTMLElement>('h3')?.focus();
    } catch (error) {
      if (ctx.signal.aborted) return;
      body.replaceChildren(failed(error, () => void loadNext()));
    }
  };

  const submit = async (): Promise<void> => {
    if (busy || !task || !reviewer || !form) return;
    const answer = labelsToSubmit(state);
    if ('missing' in answer) {
      const names = answer.missing.map((i) => state.drafts[i]!.name);
      showFormError(
        `Label every metric first: ${names.join(', ')} ${names.length === 1 ? 'has' : 'have'} no label yet.`,
      );
      state = { ...state, current: answer.missing[0]! };
      paint();
      fieldsets[answer.missing[0]!]?.querySelector<HTMLButtonElement>('.pass')?.focus();
      return;
    }
    busy = true;
    const shown = task;
    for (const control of form.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement>(
      'button, input, textarea',
    ))
      control.disabled = true;
    try {
      const item = await ctx.api.putLabels(id, shown.itemId, { reviewer, labels: answer.labels });
      if (ctx.signal.aborted) return;
      const mine = item.labels.filter((l) => l.reviewer === reviewer);
      saved.textContent = `Saved for session ${shown.sessionId}: ${mine.map((l) => `${metricName(l.metricId)} ${formatLabelScore(l.score)}`).join(', ')}.`;
      clearTimeout(savedTimer);
      savedTimer = setTimeout(() => {
        saved.textContent = '';
      }, SAVED_MS);
      busy = false;
      await loadNext();
      void refreshQueue();
      void refreshAgreement();
    } catch (error) {
      busy = false;
      if (ctx.signal.aborted) return;
      for (const control of form.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement>(
        'button, input, textarea',
      ))
        control.disabled = false;
      showFormError(failureText(error));
    }
  };

  const onKey = (event: KeyboardEvent) => {
    // A held key repeats: it never labels every metric or saves item after item.
    if (!task || !form || busy || event.defaultPrevented || event.isComposing || event.repeat) return;
    const target = event.target instanceof Element ? event.target : null;
    const inPanel = target !== null && body.contains(target);
    const shortcut = reviewShortcut(event, keyTarget(event.target), inPanel);
    if (!shortcut) return;
    event.preventDefault();
    if (shortcut.action === 'submit') return void submit();
    const own = target?.closest<HTMLFieldSetElement>('fieldset.metric-label');
    const index = own && fieldsets.includes(own) ? fieldsets.indexOf(own) : state.current;
    state = decideLabel(state, index, shortcut.score);
    showFormError(null);
    paint();
    // The focus follows the current metric when it was on a metric.
    if (own && state.current !== index)
      fieldsets[state.current]?.querySelector<HTMLInputElement>('input[type="range"]')?.focus();
  };
  document.addEventListener('keydown', onKey);
  ctx.signal.addEventListener('abort', () => document.removeEventListener('keydown', onKey), { once: true });

  const nameForm = (current: string | null): HTMLFormElement => {
    const input = h('input', {
      id: 'reviewer-name',
      name: 'reviewer',
      autocomplete: 'name',
      required: true,
      maxlength: 128,
      value: current ?? '',
      'aria-describedby': 'reviewer-help',
    });
    const error = h('p', { role: 'alert', class: 'form-error', hidden: true });
    const f = h(
      'form',
      { class: 'inline-form', 'data-testid': 'reviewer-form', novalidate: true },
      h('label', { for: 'reviewer-name' }, 'Your name'),
      input,
      h('button', { type: 'submit' }, 'Start labelling'),
      h(
        'p',
        { id: 'reviewer-help', class: 'muted' },
        'Saved with each of your labels and kept in this browser; the queue shows you the items you have not labelled.',
      ),
      error,
    );
    f.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = reviewerName(input.value);
      if (!name) {
        error.textContent = 'Type your name (1 to 128 characters).';
        error.hidden = false;
        return;
      }
      reviewer = name;
      try {
        localStorage.setItem(REVIEWER_ITEM, name);
      } catch {
        // storage refused (private mode): the name holds for this page
      }
      showReviewer();
      void loadNext();
    });
    return f;
  };

  const showReviewer = () => {
    reviewerBar.replaceChildren(
      h('span', {}, 'Labelling as ', h('strong', { 'data-testid': 'reviewer-name' }, reviewer ?? '')),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            // No item loads until a name is given again (a sample added meanwhile waits for it).
            const previous = reviewer;
            reviewer = null;
            task = null;
            form = null;
            remaining.textContent = '';
            body.replaceChildren();
            reviewerBar.replaceChildren(nameForm(previous));
            reviewerBar.querySelector<HTMLInputElement>('#reviewer-name')?.focus();
          },
        },
        'Change name',
      ),
    );
  };

  ctx.show(
    queue.name,
    facts(
      [
        ['Product', link(href({ page: 'review', productId: queue.productId, offset: 0 }), product)],
        ['Metrics', queue.metricIds.map(metricName).join(', ')],
        ['Reviewers per item', String(queue.reviewersPerItem)],
        ['Progress', progress],
        ['Created', formatTime(queue.createdAt)],
      ],
      { 'data-testid': 'queue-facts' },
    ),
    h(
      'section',
      { 'aria-labelledby': 'label-h', 'data-testid': 'labelling' },
      h('h2', { id: 'label-h' }, 'Label'),
      reviewerBar,
      remaining,
      saved,
      body,
    ),
    h(
      'section',
      { 'aria-labelledby': 'agreement-h' },
      h('h2', { id: 'agreement-h' }, 'Agreement with the judge'),
      agreementBox,
      h(
        'p',
        { class: 'muted' },
        'Over every labelled session of this product, from any queue (n: sessions with a judge score and a label). Agreement is Cohen’s κ when every score is 0 or 1, else Spearman’s ρ; the bias is the judge’s mean minus people’s, with its 95% interval; α is Krippendorff’s among reviewers of the same sessions. Calibrated: at least 30 labelled sessions and the interval’s lower end at least 0.6; not calibrated: its upper end under 0.6.',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'add-h' },
      h('h2', { id: 'add-h' }, 'Add sessions'),
      sampleForm(ctx, queue, runs, product, async (text) => {
        await refreshQueue();
        if (!task && !busy && reviewer) await loadNext();
        return text;
      }),
    ),
  );
  void refreshAgreement();
  if (reviewer) {
    showReviewer();
    await loadNext();
  } else {
    reviewerBar.replaceChildren(nameForm(null));
    reviewerBar.querySelector<HTMLInputElement>('#reviewer-name')?.focus();
  }
}

/** A seeded random sample of one of the product's finished runs, added to the queue. */
function sampleForm(
  ctx: PageContext,
  queue: ReviewQueue,
  runs: Run[],
  product: string,
  added: (text: string) => Promise<string>,
): HTMLElement {
  if (runs.length === 0)
    return h(
      'p',
      { 'data-state': 'empty' },
      `No finished run of ${product} yet: its sessions can be sampled once one finishes.`,
    );
  const run = h(
    'select',
    { id: 'sample-run', name: 'runId', required: true },
    runs.map((r) =>
      h(
        'option',
        { value: r.id },
        `${r.name} — ${formatTime(r.createdAt)} (${r.status}, ${r.progress.completed} completed session${r.progress.completed === 1 ? '' : 's'})`,
      ),
    ),
  );
  const size = h('input', {
    id: 'sample-size',
    name: 'sampleSize',
    type: 'number',
    min: 1,
    max: 1000,
    value: 10,
    required: true,
  });
  const seed = h('input', { id: 'sample-seed', name: 'seed', maxlength: 128, autocomplete: 'off' });
  const result = h('p', { role: 'status', 'data-testid': 'sample-result' });
  const error = h('p', { role: 'alert', class: 'form-error', hidden: true });
  const submit = h('button', { type: 'submit' }, 'Add a sample');
  const form = h(
    'form',
    { class: 'review-form', 'data-testid': 'sample-form', novalidate: true },
    h('label', { for: 'sample-run' }, 'Finished run'),
    run,
    h('label', { for: 'sample-size' }, 'Sample size (1 to 1000)'),
    size,
    h('label', { for: 'sample-seed' }, 'Seed (optional)'),
    seed,
    h(
      'p',
      { class: 'muted' },
      'A uniform random sample of the run’s completed sessions not yet in the queue; the same seed draws the same sample. Only sampled sessions correct the run’s scores.',
    ),
    error,
    submit,
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.hidden = true;
    const n = Number(size.value);
    if (!Number.isInteger(n) || n < 1 || n > 1000) {
      error.textContent = 'The sample size is a whole number from 1 to 1000.';
      error.hidden = false;
      return;
    }
    const chosen = runs.find((r) => r.id === run.value);
    submit.disabled = true;
    ctx.api
      .addRunSample(queue.id, {
        runId: run.value,
        sampleSize: n,
        ...(seed.value.trim() ? { seed: seed.value.trim() } : {}),
      })
      .then((answer) => {
        const skipped = answer.skipped ? `; ${answer.skipped} already in the queue` : '';
        const short = answer.added < n ? ` (of ${n} asked: no more completed sessions left to draw)` : '';
        return added(
          `Added ${answer.added} session${answer.added === 1 ? '' : 's'} of ${chosen?.name ?? run.value}${short}${skipped}. Seed: ${answer.seed ?? '—'}.`,
        );
      })
      .then((text) => {
        result.textContent = text;
      })
      .catch((e: unknown) => {
        if (ctx.signal.aborted) return;
        error.textContent = failureText(e);
        error.hidden = false;
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return form;
}
