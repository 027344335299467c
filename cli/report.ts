/**
 * What evalctl prints and how it exits, pure: the run's metrics (score, interval, pass rates) and
 * the comparison's, as aligned text for a CI log; the exit code from the run and the comparison.
 */
import type { Run, RunComparison } from '../shared/schemas/runs.js';

const num = (x: number | null | undefined, digits = 3): string => (typeof x === 'number' ? x.toFixed(digits) : '–');
const pct = (x: number | null | undefined): string => (typeof x === 'number' ? `${(x * 100).toFixed(1)}%` : '–');
const p = (x: number | null | undefined): string => (typeof x === 'number' ? String(Number(x.toPrecision(2))) : '–');

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd());
}

export function runSummary(run: Run): string {
  const { progress: pr } = run;
  const k = run.repetitions;
  const head = `run ${run.id} (${run.name}): ${run.status}, ${pr.completed} of ${pr.total} sessions completed, ${pr.failed} failed; ${k} repetition${k === 1 ? '' : 's'}, threshold ${run.threshold}`;
  if (run.metrics.length === 0) return head;
  const rows = [
    ['metric', 'score', '95% CI', 'pass rate', ...(k > 1 ? [`pass^${k}`, `pass@${k}`] : []), 'scored', 'failed'],
    ...run.metrics.map((m) => [
      m.name,
      num(m.score),
      m.confidenceInterval ? `[${num(m.confidenceInterval.lower)}, ${num(m.confidenceInterval.upper)}]` : '–',
      pct(m.passRate),
      ...(k > 1 ? [pct(m.passAllK), pct(m.passAnyK)] : []),
      String(m.evaluated),
      String(m.failed),
    ]),
  ];
  return [head, ...table(rows)].join('\n');
}

export function comparisonSummary(c: RunComparison): string {
  const head = `comparison of ${c.runId} with ${c.baseRunId} (paired by test case): ${c.verdict}`;
  if (c.metrics.length === 0) return `${head}\n  no metric was scored in both runs`;
  const rows = [
    ['metric', 'difference', '95% CI', 'adjusted p', 'n', 'base → score', 'verdict'],
    ...c.metrics.map((m) => [
      m.name,
      typeof m.difference === 'number' ? `${m.difference >= 0 ? '+' : ''}${num(m.difference)}` : '–',
      m.confidenceInterval ? `[${num(m.confidenceInterval[0])}, ${num(m.confidenceInterval[1])}]` : '–',
      p(m.adjustedPValue),
      String(m.n),
      `${num(m.baseScore)} → ${num(m.score)}`,
      m.verdict,
    ]),
  ];
  return [head, ...table(rows)].join('\n');
}

/**
 * 1 when the gate fails: a metric regressed, or the run did not complete (FAILED, or CANCELLED:
 * a cancelled run tested only part of the cases); else 0.
 */
export function exitCodeOf(run: Run, comparison?: RunComparison): 0 | 1 {
  if (run.status === 'FAILED' || run.status === 'CANCELLED') return 1;
  return comparison?.metrics.some((m) => m.verdict === 'regressed') ? 1 : 0;
}
