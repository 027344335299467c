import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions, FLAT_PACKAGES, flatPackageFile, PROJECT_ROOT } from '../../infra/constructs/app-function.js';
import { writeFlatPackages } from '../../infra/flat-packages.js';
import { checkInputTemplate, isJsonPath } from '../../shared/domain/catalog/endpoint-connection-rules.js';
import { extractPath } from '../../shared/domain/runs/caller/mapping.js';
import { renderTemplate, type TemplateContext } from '../../shared/domain/runs/caller/template.js';
import { tCdf, tQuantile } from '../../shared/domain/runs/student-t.js';

/**
 * A function bundle resolves Student's t and Nunjucks to the scope-hoisted modules
 * infra/flat-packages.ts writes, and JSONPath to its sources without its script parser
 * (infra/bundling/no-script-parser.ts); everything unbundled imports the packages. The service's
 * modules that use them, bundled as a function is, must answer exactly as they do unbundled.
 */
const unbundled = { tCdf, tQuantile, renderTemplate, checkInputTemplate, isJsonPath, extractPath };
let bundled: typeof unbundled;
let metafile: Metafile;
let dir: string;

beforeAll(async () => {
  await writeFlatPackages();
  dir = mkdtempSync(join(tmpdir(), 'flat-packages-'));
  const entry = join(dir, 'entry.ts');
  const from = (path: string) => JSON.stringify(resolve(PROJECT_ROOT, path));
  writeFileSync(
    entry,
    [
      `export { tCdf, tQuantile } from ${from('shared/domain/runs/student-t.ts')};`,
      `export { renderTemplate } from ${from('shared/domain/runs/caller/template.ts')};`,
      `export { checkInputTemplate, isJsonPath } from ${from('shared/domain/catalog/endpoint-connection-rules.ts')};`,
      `export { extractPath } from ${from('shared/domain/runs/caller/mapping.ts')};`,
    ].join('\n'),
  );
  const out = await build({
    ...esbuildOptions(join(dir, 'out')),
    entryPoints: [{ in: entry, out: 'entry' }],
    define: { __BUILD_STAMP__: '"{}"' },
    metafile: true,
  });
  metafile = out.metafile;
  bundled = (await import(pathToFileURL(join(dir, 'out', 'entry.mjs')).href)) as typeof unbundled;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a call answers: its value, or its error's name and message. */
function outcome(call: () => unknown): unknown {
  try {
    return { value: call() };
  } catch (error) {
    return { error: (error as Error).name, message: (error as Error).message };
  }
}

describe('packages scope-hoisted for the function bundles (infra/flat-packages.ts)', () => {
  it("replace the packages in a bundle: no file of theirs is bundled, their group's modules are", () => {
    const inputs = Object.keys(metafile.inputs);
    for (const [group, packages] of Object.entries(FLAT_PACKAGES))
      for (const i of packages.keys()) expect(inputs).toContain(flatPackageFile(group, i));
    expect(inputs.filter((f) => /node_modules\/(nunjucks|@stdlib)\//.test(f))).toEqual([]);
  });

  it("give Student's t exactly as the package does: quantiles and CDF, bit for bit", () => {
    const df = fc.oneof(
      fc.integer({ min: 1, max: 400 }),
      fc.integer({ min: 1, max: 10_000_000 }),
      fc.double({ min: 0, max: 1e6, noNaN: true }),
      fc.constantFrom(0, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.5),
    );
    const p = fc.oneof(
      fc.double({ min: 0, max: 1 }),
      fc.constantFrom(0, 1, 0.5, 0.8, 0.975, 1e-300, 1 - 1e-16, -0.1, 1.1, Number.NaN),
    );
    fc.assert(
      fc.property(p, df, fc.double(), (prob, degrees, x) => {
        expect(Object.is(bundled.tQuantile(prob, degrees), unbundled.tQuantile(prob, degrees))).toBe(true);
        expect(Object.is(bundled.tCdf(x, degrees), unbundled.tCdf(x, degrees))).toBe(true);
      }),
      { numRuns: 3000 },
    );
    // The comparison's own quantiles, for every sample size it meets.
    for (let n = 1; n <= 2000; n++)
      for (const q of [0.8, 0.975]) expect(bundled.tQuantile(q, n)).toBe(unbundled.tQuantile(q, n));
  });

  const TEMPLATES = [
    '{"message": "{{ input.user_message }}"}',
    '{"m": "{{ input.user_message | upper }}", "n": {{ input.count | default(0) }}}',
    '{"history": {{ input.history | dump }}, "first": "{{ input.history | first }}"}',
    '{% for turn in input.history %}{{ loop.index }}:{{ turn.role }}={{ turn.text }}{% if not loop.last %},{% endif %}{% endfor %}',
    '{% if input.flag %}"yes"{% elif input.other %}"other"{% else %}"no"{% endif %}',
    '{% set x = input.user_message | replace("a", "b") %}{"x": "{{ x }}", "len": {{ x | length }}}',
    '{% macro greet(name) %}Hello {{ name }}!{% endmacro %}{"g": "{{ greet(input.user_message) }}"}',
    '{%- raw %}{{ not rendered }}{% endraw -%} {{- input.user_message -}}',
    '{{ input.user_message | safe }} {{ input.missing.deeper }} {{ input.items | join(", ") }}',
    '{{ input.user_message | truncate(5) }} {{ input.count * 2 + 1 }} {{ "%s-%s" | format(1, 2) }}',
    '{{ input.user_message ',
    '{% if %}{% endif %}',
    '{% for x in %}',
    '{{ input.user_message | nosuchfilter }}',
    '{% endfor %}',
    '{{ input.count.toFixed(2) }}',
    '{{ input.user_message() }}',
  ];
  const VARIABLES = {
    input: {
      user_message: 'Tom said "hi"\n\\ & <b>a/b?c=d#e</b>',
      count: 3,
      flag: false,
      other: 1,
      history: [
        { role: 'user', text: 'a"b' },
        { role: 'assistant', text: 'ç\u2028' },
      ],
      items: ['x', 'y'],
    },
  };
  const CONTEXTS: TemplateContext[] = ['json', 'url', 'raw'];

  it('name their errors as unbundled, though the bundle is minified', () => {
    expect(outcome(() => bundled.checkInputTemplate('{}'))).toEqual({
      error: 'ValidationError',
      message: 'inputTemplate must contain the placeholder {{ input.user_message }}',
    });
  });

  it('render and check every template as the package does, errors included', () => {
    for (const template of TEMPLATES) {
      for (const context of CONTEXTS)
        expect(
          outcome(() => bundled.renderTemplate(template, VARIABLES, context)),
          `${context}: ${template}`,
        ).toEqual(outcome(() => unbundled.renderTemplate(template, VARIABLES, context)));
      expect(
        outcome(() => bundled.checkInputTemplate(template)),
        template,
      ).toEqual(outcome(() => unbundled.checkInputTemplate(template)));
    }
  });

  it('render and check fuzzed templates as the package does', () => {
    const piece = fc.constantFrom(
      '{{',
      '}}',
      '{%',
      '%}',
      '{#',
      '#}',
      ' ',
      '-',
      '|',
      '(',
      ')',
      '"',
      ',',
      '.',
      'input',
      'user_message',
      'history',
      'count',
      'if',
      'else',
      'endif',
      'for',
      'in',
      'endfor',
      'set',
      '=',
      'upper',
      'dump',
      'safe',
      'join',
      'length',
      'loop.index',
      'x',
      '1',
      '+',
      'not',
      'raw',
      'endraw',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), fc.constantFrom(...CONTEXTS), (pieces, context) => {
        const template = pieces.join('');
        expect(outcome(() => bundled.renderTemplate(template, VARIABLES, context))).toEqual(
          outcome(() => unbundled.renderTemplate(template, VARIABLES, context)),
        );
        expect(outcome(() => bundled.checkInputTemplate(template))).toEqual(
          outcome(() => unbundled.checkInputTemplate(template)),
        );
      }),
      { numRuns: 3000 },
    );
  });
});

describe('JSONPath in a function bundle, without its script parser (infra/bundling/no-script-parser.ts)', () => {
  it('is bundled from its sources, with no file of jsep or its plugins', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('node_modules/jsonpath-plus/src/jsonpath.js');
    expect(inputs).toContain('infra/bundling/no-script-parser.ts');
    expect(inputs.filter((f) => /node_modules\/(jsep|@jsep-plugin)\//.test(f))).toEqual([]);
  });

  const ANSWER = {
    choices: [{ message: { content: 'hi', tool_calls: null }, index: 0 }],
    data: {
      items: [
        { id: 1, tags: ['a', 'b'], price: 5 },
        { id: 2, tags: [], price: 12 },
      ],
      'odd key': 'x',
    },
    usage: { input_tokens: 3, output_tokens: 4 },
    list: [1, 2, 3, 4],
  };
  const PATHS = [
    '$',
    '$.choices[0].message.content',
    '$.data.items[*].id',
    '$.data.items[-1:]',
    '$.data.items[0:2].tags',
    '$..price',
    '$..*',
    "$.data['odd key']",
    '$.data.items.length',
    '$.list[1:3]',
    '$.list[::2]',
    '$.usage',
    '$.missing.deeper',
    '$.data.items[?(@.price < 10)].id',
    '$.data.items[(@.length-1)]',
    '$..[?(@.id)]',
    '$.data.items[?(@property === "0")]',
    '$.data.*~',
    '$.data.items^',
    '$.data.items[0].@',
    'x.y',
    '$[',
    '$.a[?(',
    '$..',
    '',
  ];

  it('extracts and checks every path as the package does, script expressions refused alike', () => {
    for (const path of PATHS) {
      expect(
        outcome(() => bundled.extractPath(ANSWER, path)),
        path,
      ).toEqual(outcome(() => unbundled.extractPath(ANSWER, path)));
      expect(bundled.isJsonPath(path), path).toBe(unbundled.isJsonPath(path));
    }
    // A script expression met in an answer is refused (no match), never parsed.
    expect(bundled.extractPath(ANSWER, '$.data.items[?(@.price < 10)].id')).toBeUndefined();
    expect(bundled.extractPath(ANSWER, '$.data.items[*].id')).toEqual([1, 2]);
  });

  it('extracts and checks fuzzed paths as the package does', () => {
    const piece = fc.constantFrom(
      '$',
      '.',
      '..',
      '[',
      ']',
      '*',
      '0',
      '1',
      '-1',
      ':',
      '?',
      '(',
      ')',
      '@',
      "'",
      'data',
      'items',
      'id',
      'tags',
      'price',
      '<',
      '10',
      '^',
      '~',
      ',',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const path = pieces.join('');
        expect(outcome(() => bundled.extractPath(ANSWER, path))).toEqual(
          outcome(() => unbundled.extractPath(ANSWER, path)),
        );
        expect(bundled.isJsonPath(path)).toBe(unbundled.isJsonPath(path));
      }),
      { numRuns: 3000 },
    );
  });
});
