import { Parser } from 'htmlparser2';

/**
 * The text of an HTML document, for the generator's ground truth and data catalog. The one module
 * that imports the HTML parser, and it imports nothing of the service's: ./documents.ts loads it
 * (`#html-text`, a lazy module shipped beside the generator's bundle) only for an HTML document.
 */

const BLOCK = new Set([
  'p',
  'div',
  'br',
  'li',
  'tr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'section',
  'article',
  'header',
  'footer',
  'table',
  'ul',
  'ol',
  'pre',
  'blockquote',
  'title',
]);
const HIDDEN = new Set(['script', 'style', 'noscript', 'template']);

/** The visible text of an HTML page: tags, scripts and styles removed, entities decoded, blocks on their own lines. */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let hidden = 0;
  const parser = new Parser(
    {
      onopentagname: (name) => {
        if (HIDDEN.has(name)) hidden++;
        if (BLOCK.has(name)) out.push('\n\n');
      },
      onclosetag: (name) => {
        if (HIDDEN.has(name) && hidden > 0) hidden--;
        if (BLOCK.has(name)) out.push('\n\n');
      },
      ontext: (text) => {
        if (hidden === 0) out.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return out.join('');
}
