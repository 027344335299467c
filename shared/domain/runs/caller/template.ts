import nunjucks from 'nunjucks';

/**
 * Template rendering for agent requests.
 *
 * Nunjucks has no finalize hook, and its autoescape only knows HTML. So each template is parsed,
 * every `{{ … }}` output is wrapped in a printing filter of the context it lands in, and the
 * transformed tree is compiled. The printing filter of a JSON body escapes a string the way
 * JSON.stringify does (quotes, backslash, control characters), so `"{{ input.user_message }}"` is
 * always a valid JSON string. An output whose last filter is `dump` (already JSON) or `safe` (the
 * author asked for the raw text) is left alone, and macro/caller output (a SafeString) is not
 * escaped twice.
 */

/** Where the rendered text goes, which decides how a printed string is escaped. */
export type TemplateContext =
  /** A JSON document: strings are JSON-string-escaped; objects and arrays print as JSON. */
  | 'json'
  /** A URL: strings are percent-encoded (encodeURIComponent), so a value cannot add a path, query or fragment. */
  | 'url'
  /** A header value: printed as is (line breaks are refused after rendering). */
  | 'raw';

export class TemplateRenderError extends Error {}

// ---- the parts of Nunjucks' API its type declarations leave out ----
interface NjNode {
  lineno: number;
  colno: number;
  iterFields(fn: (value: unknown, field: string) => void): void;
}
interface NjInternals {
  parser: { parse(src: string, extensions: unknown[], opts: unknown): NjNode };
  compiler: {
    Compiler: new (name: string, throwOnUndefined: boolean) => { compile(node: NjNode): void; getCode(): string };
  };
  nodes: Record<'Node' | 'NodeList' | 'Output' | 'TemplateData' | 'Filter' | 'Symbol', new (...args: any[]) => any>;
  runtime: { SafeString: new (value: string) => unknown };
  Template: new (
    src: { type: 'code'; obj: unknown },
    env: nunjucks.Environment,
    path: string,
    eagerCompile: boolean,
  ) => nunjucks.Template;
}
const nj = nunjucks as unknown as NjInternals;
const { nodes } = nj;

const PRINT_FILTER: Record<TemplateContext, string> = { json: '__print_json', url: '__print_url', raw: '__print_raw' };
/** Filters whose output is printed unchanged when they are the last one applied. */
const VERBATIM_FILTERS = new Set(['dump', 'safe']);

const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });
// In a JSON document an object or array prints as JSON (as `dump` would); only strings are escaped.
env.addFilter(PRINT_FILTER.json, (value: unknown) =>
  typeof value === 'object' && value !== null && !(value instanceof nj.runtime.SafeString)
    ? JSON.stringify(value)
    : printValue(value, (s) => JSON.stringify(s).slice(1, -1)),
);
env.addFilter(PRINT_FILTER.url, (value: unknown) => printValue(value, encodeURIComponent));
env.addFilter(PRINT_FILTER.raw, (value: unknown) => printValue(value, (s) => s));

function printValue(value: unknown, escapeText: (s: string) => string): unknown {
  if (value === undefined || value === null) return '';
  if (value instanceof nj.runtime.SafeString) return value;
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'object') return escapeText(JSON.stringify(value) ?? '');
  return escapeText(String(value));
}

function wrapOutputs(node: unknown, filter: string): void {
  if (!(node instanceof nodes.Node)) return;
  if (node instanceof nodes.Output) {
    node.children = (node.children as any[]).map((child: any) => {
      if (child instanceof nodes.TemplateData) return child;
      if (child instanceof nodes.Filter && VERBATIM_FILTERS.has(child.name?.value)) {
        // Only the outer filter is exempt: `{{ x | dump }}` is JSON, but its argument is not printed.
        wrapOutputs(child.args, filter);
        return child;
      }
      wrapOutputs(child, filter);
      return new nodes.Filter(
        child.lineno,
        child.colno,
        new nodes.Symbol(child.lineno, child.colno, filter),
        new nodes.NodeList(child.lineno, child.colno, [child]),
      );
    });
    return;
  }
  if (node instanceof nodes.NodeList) {
    for (const child of node.children as unknown[]) wrapOutputs(child, filter);
    return;
  }
  (node as NjNode).iterFields((value) => {
    if (Array.isArray(value)) for (const v of value) wrapOutputs(v, filter);
    else wrapOutputs(value, filter);
  });
}

/** Compiled templates by context and source: a run renders the same few templates many times. */
const cache = new Map<string, nunjucks.Template>();
const CACHE_LIMIT = 500;

function compileTemplate(source: string, context: TemplateContext): nunjucks.Template {
  const key = `${context}\u0000${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let template: nunjucks.Template;
  try {
    // The same steps as Nunjucks' own compile, with the outputs wrapped in between. Its
    // transformer only matters for async filters and `super()` in inherited blocks, neither of
    // which a standalone template without a loader can use.
    const ast = nj.parser.parse(source, [], (env as unknown as { opts: unknown }).opts);
    wrapOutputs(ast, PRINT_FILTER[context]);
    const compiler = new nj.compiler.Compiler('template', false);
    compiler.compile(ast);
    const props = new Function(compiler.getCode())() as unknown;
    template = new nj.Template({ type: 'code', obj: props }, env, 'template', true);
  } catch (error) {
    throw new TemplateRenderError(templateMessage(error));
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, template);
  return template;
}

function templateMessage(error: unknown): string {
  return String((error as Error)?.message ?? error)
    .replace(/\(template\)\s*/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

/**
 * Renders a template over the variables. By default the text is a JSON document: every string
 * printed by `{{ … }}` is JSON-string-escaped, `{{ x | dump }}` prints any value as JSON, and an
 * undefined variable prints nothing. Throws TemplateRenderError when the template cannot be
 * compiled or rendered.
 */
export function renderTemplate(
  template: string,
  variables: Record<string, unknown>,
  context: TemplateContext = 'json',
): string {
  const compiled = compileTemplate(template, context);
  try {
    return compiled.render(variables);
  } catch (error) {
    throw new TemplateRenderError(templateMessage(error));
  }
}
