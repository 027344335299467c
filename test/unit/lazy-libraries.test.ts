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

  it('the evaluator loads the schema compiler for a json_schema check only, and checks a fixed LLM answer without it in a bundle', () => {
    const out = loadedPackages(`
      const checks = await import('./shared/domain/evaluation/checks.ts');
      await import('./shared/domain/evaluation/evaluator.ts');
      await import('./shared/domain/runs/simulator.ts');
      out.imported = loaded();
      await checks.loadCheckScorer({ type: 'contains' });
      out.contains = loaded();
      await checks.loadCheckScorer({ type: 'json_schema' });
      out.finding = [checks.scoreCheck('guard', { type: 'json_schema', target: 'actual_output', schema: { type: 'object' } }, { actual_output: '{}' }).score === 1];
      out.jsonSchema = loaded();`);
    expect(out).toEqual({
      imported: [false, false, false],
      contains: [false, false, false],
      finding: [true],
      jsonSchema: [true, false, false],
    });
  });

  it('an LLM answer schema with no precompiled validator loads the answer compiler with its first answer', () => {
    const out = loadedPackages(`
      const { parseAnswer } = await import('./shared/llm/answer.ts');
      const { JUDGE_SCORE_SCHEMA } = await import('./shared/llm/answer-schemas.ts');
      out.imported = loaded();
      out.parsed = [(await parseAnswer('{"score": 1, "reason": "ok"}', JUDGE_SCORE_SCHEMA, 'judge_score', 'judge')).ok];
      out.answered = loaded();`);
    expect(out).toEqual({ imported: [false, false, false], parsed: [true], answered: [true, false, false] });
  });

  it('the generator imports no schema compiler: the answer schemas it builds per call are checked on fixed shapes', () => {
    const out = loadedPackages(`
      await import('./shared/domain/generation/job.ts');
      out.imported = loaded();`);
    expect(out).toEqual({ imported: [false, false, false] });
  });
});
