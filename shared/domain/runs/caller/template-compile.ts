import compiler from 'nunjucks/src/compiler.js';
import nodes, { type Node } from 'nunjucks/src/nodes.js';
import parser from 'nunjucks/src/parser.js';

/**
 * Compiling an agent request's template: Nunjucks' parser and compiler alone, without its
 * environment (filters, loaders, the runtime's render path). A connection's write only checks that
 * its template compiles; rendering (template.ts) runs what this compiles.
 *
 * Nunjucks has no finalize hook, and its autoescape only knows HTML. So each template is parsed,
 * every `{{ … }}` output is wrapped in a printing filter of the context it lands in, and the
 * transformed tree is compiled. The printing filters themselves belong to the rendering
 * environment (template.ts). An output whose last filter is `dump` (already JSON) or `safe` (the
 * author asked for the raw text) is left alone.
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

/** The printing filter each context's outputs are wrapped in. */
export const PRINT_FILTER: Record<TemplateContext, string> = {
  json: '__print_json',
  url: '__print_url',
  raw: '__print_raw',
};
/** Filters whose output is printed unchanged when they are the last one applied. */
const VERBATIM_FILTERS = new Set(['dump', 'safe']);

/** The options the rendering environment is made with: the lexer reads its whitespace control. */
export const TEMPLATE_OPTIONS = { autoescape: false, throwOnUndefined: false, trimBlocks: false, lstripBlocks: false };

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
  (node as Node).iterFields((value) => {
    if (Array.isArray(value)) for (const v of value) wrapOutputs(v, filter);
    else wrapOutputs(value, filter);
  });
}

/**
 * Compiles a template for a context: the object of render functions Nunjucks' Template runs (its
 * `root` and blocks). The same steps as Nunjucks' own compile, with the outputs wrapped in between.
 * Its transformer only matters for async filters and `super()` in inherited blocks, neither of
 * which a standalone template without a loader can use. Throws TemplateRenderError, with the line
 * and column of a syntax error.
 */
export function compileTemplate(source: string, context: TemplateContext): unknown {
  try {
    const ast = parser.parse(source, [], TEMPLATE_OPTIONS);
    wrapOutputs(ast, PRINT_FILTER[context]);
    const code = new compiler.Compiler('template', false);
    code.compile(ast);
    return new Function(code.getCode())() as unknown;
  } catch (error) {
    throw new TemplateRenderError(templateMessage(error));
  }
}

/** A Nunjucks error's message without the template's name: `[Line 1, Column 4] expected …`. */
export function templateMessage(error: unknown): string {
  // Nunjucks' own errors gain their line and column when told the template's name.
  (error as { Update?: (path: string) => void })?.Update?.('template');
  return String((error as Error)?.message ?? error)
    .replace(/\(template\)\s*/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
