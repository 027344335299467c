import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README and the manual in docs/ point only at what the repository holds: every relative link
 * names an existing file (and an existing heading when it has an anchor), every example script the
 * README runs exists, and no file cites a document kept outside the repository.
 */
const root = resolve(import.meta.dirname, '..', '..');
const docs = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(root, 'docs', f));
const pages = [join(root, 'README.md'), ...docs];
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text outside fenced code blocks, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).match(/^#{1,6} .+$/gm) ?? [];
  return new Set(
    headings.map((h) =>
      h
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

function links(file: string): string[] {
  return [...prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the README and docs/', () => {
  it('the README is a newcomer page of at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  for (const page of pages) {
    it(`${relative(root, page)}: every relative link points at a file of the repository`, () => {
      for (const link of links(page)) {
        if (/^[a-z]+:/i.test(link)) continue; // https:, mailto:
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? page : resolve(dirname(page), path);
        expect(relative(root, target).startsWith('..'), `${link} leaves the repository`).toBe(false);
        expect(existsSync(target), `${link} does not exist`).toBe(true);
        if (anchor && target.endsWith('.md')) {
          expect([...anchors(target)], `${link}: no such heading`).toContain(anchor);
        }
      }
    });
  }

  it('every example script the README mentions exists', () => {
    const scripts = [...new Set(readme.match(/examples\/[\w.-]+\.mjs/g) ?? [])];
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(existsSync(join(root, script)), script).toBe(true);
  });

  it('no file cites a design document kept outside the repository', () => {
    // Spelled in parts so that this file does not cite them either.
    const outside = [['DESIGN', 'md'].join('.'), ['service-interface', 'md'].join('.')];
    const skipped = new Set(['node_modules', 'cdk.out', 'coverage', 'test-results', 'dist']);
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.') || skipped.has(name)) continue;
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(md|ts|mjs|js|json)$/.test(name)) {
          const text = readFileSync(path, 'utf8');
          for (const doc of outside) if (text.includes(doc)) offenders.push(`${relative(root, path)}: ${doc}`);
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
