import nunjucks from 'nunjucks';
import {
  compileTemplate as compileCode,
  PRINT_FILTER,
  TEMPLATE_OPTIONS,
  type TemplateContext,
  TemplateRenderError,
  templateMessage,
} from './template-compile.js';

export { type TemplateContext, TemplateRenderError } from './template-compile.js';

/**
 * Template rendering for agent requests: the compiled template (template-compile.ts) run in a
 * Nunjucks environment that holds the printing filters. The printing filter of a JSON body escapes
 * a string the way JSON.stringify does (quotes, backslash, control characters), so
 * `"{{ input.user_message }}"` is always a valid JSON string; macro/caller output (a SafeString) is
 * not escaped twice.
 */

// The parts of Nunjucks' API its type declarations leave out.
interface NjInternals {
  runtime: { SafeString: new (value: string) => unknown };
  Template: new (
    src: { type: 'code'; obj: unknown },
    env: nunjucks.Environment,
    path: string,
    eagerCompile: boolean,
  ) => nunjucks.Template;
}
const nj = nunjucks as unknown as NjInternals;

// No loaders: a request's template stands alone, and `{% include %}` finds no file to read.
const env = new nunjucks.Environment([], TEMPLATE_OPTIONS);
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

/** Compiled templates by context and source: a run renders the same few templates many times. */
const cache = new Map<string, nunjucks.Template>();
const CACHE_LIMIT = 500;

function compileTemplate(source: string, context: TemplateContext): nunjucks.Template {
  const key = `${context}\u0000${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const template = new nj.Template({ type: 'code', obj: compileCode(source, context) }, env, 'template', true);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, template);
  return template;
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
