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

/** A header cell with its own content and attributes (a sort button, `aria-sort`). */
export interface HeadCell {
  content: Child | Child[];
  attrs?: Record<string, Attr>;
}

/**
 * A table in a horizontally scrolling, focusable region (narrow screens keep every column).
 * `prose` names the columns of running text (reasons, first user turns): they keep a readable
 * width instead of being squeezed to a word per line on a narrow screen.
 */
export function table(
  caption: string,
  head: (string | HeadCell)[],
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
          head.map((c) =>
            typeof c === 'string' ? h('th', { scope: 'col' }, c) : h('th', { scope: 'col', ...c.attrs }, c.content),
          ),
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

/** A name that may break after its underscores and dots (`text_<wbr>similarity`); its text is unchanged. */
export function breakable(name: string): (string | HTMLElement)[] {
  return name.split(/(?<=[_.])/).flatMap((part, i) => (i === 0 ? [part] : [h('wbr'), part]));
}

/** Copies `text` to the clipboard (the Clipboard API, else a selected text area); true when it worked. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { class: 'visually-hidden', readonly: true, 'aria-hidden': 'true' });
    area.value = text;
    document.body.append(area);
    area.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}

/** Two overlapping sheets (drawn, so no font needs the glyph); a tick once copied (CSS). */
function copyIcon(): SVGSVGElement {
  return svg(
    'svg',
    { viewBox: '0 0 16 16', width: 12, height: 12, 'aria-hidden': 'true', focusable: 'false', class: 'copy-icon' },
    svg('rect', { x: 5, y: 5, width: 9, height: 9, rx: 1.5 }),
    svg('path', { d: 'M11 3V2.5A1.5 1.5 0 0 0 9.5 1h-7A1.5 1.5 0 0 0 1 2.5v7A1.5 1.5 0 0 0 2.5 11H3' }),
  );
}

/** A small button copying an id; a status beside it says it was copied (for screen readers too). */
export function copyButton(id: string, what: string): HTMLElement {
  const status = h('span', { class: 'visually-hidden', role: 'status' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'copy-id',
      // Named by the id it copies, not the record's name: a name is free text, and a button named
      // after "compare bot" would answer to "Compare" too.
      title: `Copy the id of ${what}`,
      'aria-label': `Copy the id ${id}`,
      'data-copy': id,
    },
    copyIcon(),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  button.addEventListener('click', () => {
    void copyText(id).then((ok) => {
      button.dataset.copied = ok ? 'yes' : 'no';
      status.textContent = ok ? `Copied ${id}` : `Could not copy; the id is ${id}`;
      clearTimeout(timer);
      timer = setTimeout(() => {
        delete button.dataset.copied;
        status.textContent = '';
      }, 2000);
    });
  });
  return h('span', { class: 'copy' }, button, status);
}

/**
 * A record by its name, its id on hover (`title`) and a button copying the id; a link when `to`
 * is given. The id is never in the text: names, not ids.
 */
export function named(name: string, id: string, to?: string): HTMLElement {
  const label = to
    ? h('a', { href: to, title: id, 'data-id': id }, name)
    : h('span', { title: id, 'data-id': id }, name);
  return h('span', { class: 'named' }, label, copyButton(id, name));
}
