/**
 * What evalctl prints and how it exits, pure: the run's metrics (score, interval, pass rates) and
 * the comparison's (with what a comparison that found nothing could have detected), as aligned
 * text for a CI log; the exit code from the run, the comparison and the floors (./gates.ts).
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
  return [head, ...table(rows), ...c.metrics.flatMap(advice)].join('\n');
}

/** Two significant digits: what a detectable effect is worth reading (0.546 → 0.55, 0.0663 → 0.066). */
const effect = (x: number): string => String(Number(x.toPrecision(2)));

/**
 * What a comparison that found nothing could have found, and what would help: "n = 7 can detect
 * ±0.55; add cases or --repetitions" (the minimum detectable effect at 80% power).
 */
function advice(m: RunComparison['metrics'][number]): string[] {
  if (m.verdict === 'not_enough_data')
    return [
      `  ${m.name}: not enough data: n = ${m.n} paired case${m.n === 1 ? '' : 's'}, a comparison needs at least 2; add cases both runs score`,
    ];
  if (m.verdict !== 'no_significant_change' || m.minimumDetectableEffect === null) return [];
  if (m.minimumDetectableEffect === 0)
    return [`  ${m.name}: no significant change; no case's score moved (n = ${m.n})`];
  return [
    `  ${m.name}: no significant change; n = ${m.n} can detect ±${effect(m.minimumDetectableEffect)}; add cases or --repetitions`,
  ];
}

/**
 * 1 when the gate fails: a metric regressed, the run did not complete (FAILED, or CANCELLED: a
 * cancelled run tested only part of the cases), or a floor set on the command line broke; else 0.
 */
export function exitCodeOf(run: Run, comparison?: RunComparison, checks: readonly { held: boolean }[] = []): 0 | 1 {
  if (run.status === 'FAILED' || run.status === 'CANCELLED') return 1;
  if (checks.some((c) => !c.held)) return 1;
  return comparison?.metrics.some((m) => m.verdict === 'regressed') ? 1 : 0;
}
