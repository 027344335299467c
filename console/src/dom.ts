type Child = Node | string | number | null | undefined | false;
type Attr = string | number | boolean | null | undefined | ((event: Event) => void);

/**
 * Builds an element: `on…` attributes become listeners, `class` the class name, `true` an empty
 * attribute, `false`/null/undefined nothing. Text children are text nodes (never parsed as HTML).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'class') el.className = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Builds an SVG element (attributes as given, text children as text nodes). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | null | undefined> = {},
  ...children: (Child | Child[])[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    el.setAttribute(name, typeof value === 'number' ? String(Number(value.toFixed(2))) : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * A table in a horizontally scrolling, focusable region (narrow screens keep every column).
 * `prose` names the columns of running text (reasons, first user turns): they keep a readable
 * width instead of being squeezed to a word per line on a narrow screen.
 */
export function table(
  caption: string,
  head: string[],
  rows: Child[][],
  attrs: Record<string, Attr> = {},
  prose: number[] = [],
  rowAttrs: (index: number) => Record<string, Attr> = () => ({}),
): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: 0 },
    h(
      'table',
      attrs,
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r, i) =>
          h(
            'tr',
            rowAttrs(i),
            r.map((c, i) => h('td', prose.includes(i) ? { class: 'prose' } : {}, c)),
          ),
        ),
      ),
    ),
  );
}

/** A status badge; the status is text, the colour only repeats it. */
export function badge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${status.toLowerCase()}` }, status);
}

export function link(to: string, text: string): HTMLAnchorElement {
  return h('a', { href: to }, text);
}

/** Previous / next links of a paginated list (`offset`, page size `limit`, `total` from X-Total-Count). */
export function pager(
  label: string,
  offset: number,
  limit: number,
  total: number,
  hrefAt: (offset: number) => string,
): HTMLElement {
  const last = Math.min(total, offset + limit);
  return h(
    'nav',
    { class: 'pager', 'aria-label': label },
    offset > 0 ? h('a', { href: hrefAt(Math.max(0, offset - limit)), rel: 'prev' }, 'Previous') : null,
    h('span', {}, total === 0 ? '0 items' : `${offset + 1}–${last} of ${total}`),
    last < total ? h('a', { href: hrefAt(offset + limit), rel: 'next' }, 'Next') : null,
  );
}

/** A definition list of label → value pairs (a record's facts). */
export function facts(pairs: [string, Node | string][], attrs: Record<string, Attr> = {}): HTMLElement {
  return h(
    'dl',
    { class: 'facts', ...attrs },
    pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
  );
}
