import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const re of [/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const m of text.matchAll(re)) specifiers.push(m[1]!);
  }
  return specifiers;
}

describe('dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const imported = new Set(['functions', 'shared', 'infra'].flatMap((d) => sourceFiles(join(ROOT, d))).flatMap(importsOf));
  const isImported = (dep: string) => [...imported].some((s) => s === dep || s.startsWith(`${dep}/`));

  it('every runtime dependency is imported by some file under functions/, shared/ or infra/', () => {
    const unused = Object.keys(pkg.dependencies).filter((dep) => !isImported(dep));
    expect(unused).toEqual([]);
  });

  it('the check recognises packages that are imported and rejects one that is not', () => {
    expect(isImported('@middy/core')).toBe(true);
    expect(isImported('@aws-sdk/util-dynamodb')).toBe(true);
    expect(isImported('left-pad')).toBe(false);
  });
});

describe('cold start: no AWS SDK client in a function (docs/cold-start.md, 7)', () => {
  const runtimeFiles = ['functions', 'shared'].flatMap((d) => sourceFiles(join(ROOT, d)));
  /** Value imports (not `import type`/`export type`) of the SDK's and Smithy's packages. */
  const sdkValueImports = (text: string) =>
    [...text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"`;]*?\bfrom\s*['"]((?:@aws-sdk|@smithy|@aws-crypto)\/[^'"]+)['"]|\bimport\s*\(\s*['"]((?:@aws-sdk|@smithy)\/[^'"]+)['"]\s*\)/gm)]
      .map((m) => m[1] ?? m[2]!)
      .filter((s) => s !== '@aws-sdk/util-dynamodb');

  it('no file under functions/ or shared/ imports an SDK or Smithy package at run time (types and util-dynamodb aside)', () => {
    const offenders = runtimeFiles.flatMap((f) => sdkValueImports(readFileSync(f, 'utf8')).map((s) => `${relative(ROOT, f)} imports ${s}`));
    expect(offenders).toEqual([]);
  });

  it('the check tells value imports from type imports', () => {
    expect(sdkValueImports("import { GetCommand } from '@aws-sdk/lib-dynamodb';\nimport type { X } from '@aws-sdk/lib-dynamodb';\nexport type { Y } from '@aws-sdk/client-dynamodb';\nconst m = await import('@smithy/core');\nimport { convertToAttr } from '@aws-sdk/util-dynamodb';")).toEqual([
      '@aws-sdk/lib-dynamodb',
      '@smithy/core',
    ]);
  });
});

describe('architecture: use cases reach the table only through shared/db repositories', () => {
  const domainFiles = sourceFiles(join(ROOT, 'shared', 'domain'));

  it('finds the domain modules', () => {
    expect(domainFiles.length).toBeGreaterThan(20);
  });

  it('no file under shared/domain imports an AWS SDK package', () => {
    const offenders = domainFiles.flatMap((f) => importsOf(f).filter((s) => s.startsWith('@aws-sdk/')).map((s) => `${relative(ROOT, f)} imports ${s}`));
    expect(offenders).toEqual([]);
  });

  it('no file under shared/domain uses the DynamoDB document client directly', () => {
    const offenders = domainFiles.filter((f) => /\bdoc\.send\(|import\s*\{[^}]*\bdoc\b[^}]*\}\s*from\s*['"][^'"]*db\/client\.js['"]/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('the import scanner sees the forms it must catch', () => {
    const sample = join(ROOT, 'test', 'unit', 'architecture.test.ts');
    expect(importsOf(sample)).toEqual(expect.arrayContaining(['node:fs', 'node:path', 'vitest']));
  });
});
