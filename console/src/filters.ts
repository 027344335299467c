import { h, link } from './dom';

/**
 * The pieces of a list's filter form (the runs and monitors lists): selects that apply at once, a
 * name search that applies on Enter or with the button, and a link that clears them.
 */

/** A select over records by name; `every` is the empty choice's text. */
export function filterSelect(
  id: string,
  name: string,
  every: string,
  choices: readonly { id: string; text: string }[],
  selected: string | undefined,
): HTMLSelectElement {
  return h(
    'select',
    { id, name },
    h('option', { value: '', selected: !selected }, every),
    choices.map((c) => h('option', { value: c.id, selected: c.id === selected }, c.text)),
  );
}

/** The name search box (`filter-q`). */
export function nameSearch(q: string | undefined): HTMLInputElement {
  return h('input', {
    id: 'filter-q',
    name: 'q',
    type: 'search',
    value: q ?? '',
    maxlength: 200,
    autocomplete: 'off',
    placeholder: 'part of the name',
  });
}

/** The form: each field labelled, the search last, a submit that calls `go`, and the clearing link when any filter is set. */
export function filterForm(options: {
  label: string;
  testId: string;
  fields: readonly [label: string, control: HTMLSelectElement | HTMLInputElement][];
  clearHref: string | null;
  go: () => void;
}): HTMLFormElement {
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': options.label, 'data-testid': options.testId },
    options.fields.map(([label, control]) =>
      h('span', { class: 'field' }, h('label', { for: control.id }, label), control),
    ),
    h('button', { type: 'submit' }, 'Search'),
    options.clearHref ? link(options.clearHref, 'Clear the filters') : null,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    options.go();
  });
  return form;
}
