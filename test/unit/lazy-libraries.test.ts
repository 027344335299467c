import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

/**
 * A library only some requests need is loaded by those requests, not when the module that uses it
 * is imported (docs/cold-start.md): checked in a fresh Node process, where the packages loaded so
 * far are those in the module cache.
 */
function loadedPackages(script: string): Record<string, boolean[]> {
  const program = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const loaded = () => ['ajv', 'redos-detector', 'regjsparser'].map((p) =>
      Object.keys(require.cache).some((k) => k.includes('/node_modules/' + p + '/')));
    const out = {};
    ${script}
    process.stdout.write(JSON.stringify(out));`;
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
    cwd: root,
    env: { ...process.env, TABLE_NAME: 'unit', BUCKET_NAME: 'unit' },
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as Record<string, boolean[]>;
}

describe('libraries loaded by the requests that need them', () => {
  it('POST /metrics and the endpoint connection writes load the schema compiler and the regex analysers only for a check or connection that has a schema or a pattern', () => {
    const out = loadedPackages(`
      const rules = await import('./shared/domain/metrics/check-rules.ts');
      await import('./shared/domain/metrics/create-metric.ts');
      await import('./shared/domain/catalog/endpoint-connections.ts');
      out.imported = loaded();
      await rules.loadCheckAnalysers({ type: 'contains' });
      out.contains = loaded();
      await rules.loadCheckAnalysers({ type: 'regex' });
      out.regex = loaded();
      await rules.loadCheckAnalysers({ type: 'json_schema' });
      out.jsonSchema = loaded();`);
    // [ajv, redos-detector, regjsparser]
    expect(out).toEqual({
      imported: [false, false, false],
      contains: [false, false, false],
      regex: [false, true, true],
      jsonSchema: [true, true, true],
    });
  });

  it('the checks scorer holds its schema compiler: a json_schema check scores without a load step', () => {
    const out = loadedPackages(`
      const { scoreCheck } = await import('./shared/domain/evaluation/checks.ts');
      out.finding = [scoreCheck('guard', { type: 'json_schema', target: 'actual_output', schema: { type: 'object' } }, { actual_output: '{}' }).score === 1];
      out.loaded = loaded();`);
    expect(out).toEqual({ finding: [true], loaded: [true, false, false] });
  });
});
