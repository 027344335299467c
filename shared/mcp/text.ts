/**
 * The MCP tools' answers as text a person reads in a chat (shared/mcp/tools.ts): short lines, names
 * before ids, figures rounded. The same records go out whole as `structuredContent`.
 */
import type { FailingCases } from '../domain/runs/failing-cases.js';
import type { Alert } from '../schemas/alerts.js';
import type { ReviewItem, ReviewTask } from '../schemas/review.js';
import type { Run, RunComparison } from '../schemas/runs.js';
import type { ScorePoint } from '../domain/monitors/statistics.js';

const fixed = (x: number | null | undefined, digits = 2): string =>
  x === null || x === undefined ? '–' : x.toFixed(digits);
const percent = (x: number | null | undefined): string =>
  x === null || x === undefined ? '–' : `${Math.round(x * 100)}%`;
const signed = (x: number | null | undefined): string =>
  x === null || x === undefined ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

function metricLine(m: Run['metrics'][number]): string {
  const interval = m.confidenceInterval
    ? ` [${fixed(m.confidenceInterval.lower)}, ${fixed(m.confidenceInterval.upper)}]`
    : '';
  const parts = [`score ${fixed(m.score)}${interval}`, `pass rate ${percent(m.passRate)}`];
  if (m.passAllK !== undefined && m.passAllK !== null) parts.push(`pass^k ${percent(m.passAllK)}`);
  if (m.passAnyK !== undefined && m.passAnyK !== null) parts.push(`pass@k ${percent(m.passAnyK)}`);
  if (m.corrected)
    parts.push(
      `corrected ${fixed(m.corrected.score)} [${fixed(m.corrected.interval.lower)}, ${fixed(m.corrected.interval.upper)}] from ${m.corrected.labeled} human labels`,
    );
  parts.push(`${m.evaluated} evaluated${m.failed ? `, ${m.failed} failed` : ''}`);
  return `- ${m.name} (${m.metricId}): ${parts.join(', ')}`;
}

export function runList(runs: Run[], total: number, offset: number): string {
  if (runs.length === 0) return total === 0 ? 'No runs match.' : `No runs past ${offset} (${total} match).`;
  const lines = runs.map((r) => {
    const scores = r.metrics
      .slice(0, 3)
      .map((m) => `${m.name} ${fixed(m.score)} (pass ${percent(m.passRate)})`)
      .join(', ');
    const more = r.metrics.length > 3 ? ` +${r.metrics.length - 3}` : '';
    return `- ${r.id} · ${r.name} · ${r.status} · ${scores || 'no scores yet'}${more} · created ${r.createdAt}`;
  });
  return [`Runs ${offset + 1}–${offset + runs.length} of ${total}:`, ...lines].join('\n');
}

export function runDetail(run: Run): string {
  const p = run.progress;
  return [
    `Run ${run.id} “${run.name}”: ${run.status}${run.error ? ` (${run.error})` : ''}`,
    `Version ${run.versionId}, tests ${run.testIds.join(', ') || '–'}, ${run.repetitions} repetition(s), threshold ${run.threshold}`,
    `Progress: ${p.completed} completed, ${p.failed} failed, ${p.running} running, ${p.pending} pending of ${p.total}`,
    run.metrics.length ? 'Metrics:' : 'No metrics scored yet.',
    ...run.metrics.map(metricLine),
  ].join('\n');
}

export function runStarted(run: Run): string {
  return [
    `Started run ${run.id} “${run.name}” (${run.status}): ${run.progress.total} session(s) to run, metrics ${run.metricIds.join(', ')}.`,
    'Call get_run with this runId until its status is COMPLETED, then compare_runs or failing_cases.',
  ].join('\n');
}

export function comparison(c: RunComparison): string {
  const lines = c.metrics.map((m) => {
    const interval = m.confidenceInterval
      ? ` [${signed(m.confidenceInterval[0])}, ${signed(m.confidenceInterval[1])}]`
      : '';
    return `- ${m.name}: ${m.verdict}, ${fixed(m.baseScore, 3)} → ${fixed(m.score, 3)} (${signed(m.difference)}${interval}, adjusted p ${fixed(m.adjustedPValue, 3)}, n ${m.n}, detectable ±${fixed(m.minimumDetectableEffect, 3)})`;
  });
  return [
    `Run ${c.runId} against base ${c.baseRunId} (paired by test case): ${c.verdict}`,
    ...(lines.length ? lines : ['No metric was scored in both runs.']),
  ].join('\n');
}

export function failingCases(f: FailingCases): string {
  const head = `Run ${f.runId} (${f.runStatus}, threshold ${f.threshold}): ${f.total} of ${f.sessions} session(s) did not pass.`;
  if (f.items.length === 0) return f.total === 0 ? head : `${head} None past offset ${f.offset}.`;
  const blocks = f.items.map((c, i) => {
    const lines = [
      `${f.offset + i + 1}. case ${c.testCaseId ?? '–'}${c.repetition > 1 ? ` (repetition ${c.repetition})` : ''}, session ${c.sessionId}${c.sessionStatus === 'FAILED' ? `: FAILED${c.sessionError ? ` (${c.sessionError})` : ''}` : ''}`,
      `   input: ${c.input}`,
    ];
    if (c.expectedOutput !== null) lines.push(`   expected: ${c.expectedOutput}`);
    c.turns.forEach((t, n) => {
      if (c.turns.length > 1 || t.input !== c.input) lines.push(`   turn ${n + 1} input: ${t.input}`);
      lines.push(`   ${c.turns.length > 1 ? `turn ${n + 1} ` : ''}output: ${t.output ?? '(none)'}`);
    });
    for (const m of c.metrics)
      lines.push(
        m.error !== null
          ? `   ${m.name}: evaluation failed (${m.error})`
          : `   ${m.name}: ${fixed(m.score)}${m.reason ? `: ${m.reason}` : ''}`,
      );
    return lines.join('\n');
  });
  const next =
    f.offset + f.items.length < f.total ? `\nMore: call again with offset ${f.offset + f.items.length}.` : '';
  return `${head}\n${blocks.join('\n')}${next}`;
}

export interface MonitorStatusView {
  monitor: { id: string; name: string; status: string; productId: string };
  range: { from: string; to: string };
  metrics: (ScorePoint & { metricGroupId: string; name: string })[];
  worstMetric: (ScorePoint & { metricGroupId: string; name: string }) | null;
  openAlerts: Alert[];
}

export function monitorStatus(s: MonitorStatusView): string {
  const metrics = s.metrics.map((m) => {
    const interval = m.confidenceInterval
      ? ` [${fixed(m.confidenceInterval.lower)}, ${fixed(m.confidenceInterval.upper)}]`
      : '';
    return `- ${m.name}: ${fixed(m.score)}${interval} over ${m.scoredSessions} scored session(s)${m.collectingData ? ' (collecting data)' : ''}`;
  });
  const alerts = s.openAlerts.map(
    (a) =>
      `- ${a.id}: ${a.metricGroupId} at ${fixed(a.score)} below ${a.below} over ${a.window} (${a.scoredSessions} sessions), open since ${a.openedAt}`,
  );
  return [
    `Monitor ${s.monitor.id} “${s.monitor.name}”: ${s.monitor.status}, ${s.range.from.slice(0, 10)} to ${s.range.to.slice(0, 10)}`,
    ...(metrics.length ? metrics : ['No metric bound.']),
    s.worstMetric ? `Worst: ${s.worstMetric.name} at ${fixed(s.worstMetric.score)}` : 'Worst: none scored yet',
    alerts.length ? `Open alerts (${alerts.length}):` : 'No open alerts.',
    ...alerts,
  ].join('\n');
}

export function reviewTask(task: ReviewTask | undefined, reviewer: string): string {
  if (!task) return `Nothing left to review for ${reviewer} in this queue.`;
  const lines = [
    `Item ${task.itemId} of queue ${task.queueId} (session ${task.sessionId}); ${task.remaining} left for ${reviewer}.`,
  ];
  if (task.instructions) lines.push(`Instructions: ${task.instructions}`);
  for (const t of task.turns) lines.push(`User: ${t.input}`, `Agent: ${t.output ?? '(none)'}`);
  if (task.expectedOutput !== null) lines.push(`Expected: ${task.expectedOutput}`);
  lines.push('Label each metric 0–1 with label_review_item:');
  for (const m of task.metrics) lines.push(`- ${m.name} (${m.id})${m.description ? `: ${m.description}` : ''}`);
  return lines.join('\n');
}

export function labelled(item: ReviewItem, reviewer: string): string {
  const mine = item.labels.filter((l) => l.reviewer === reviewer);
  return [
    `Labelled item ${item.id} as ${reviewer}: ${mine.map((l) => `${l.metricId} ${l.score}`).join(', ')}. Item is ${item.status}.`,
  ].join('\n');
}
