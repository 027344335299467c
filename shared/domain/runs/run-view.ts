import type { MetricStat, StoredRun } from '../../db/runs.js';
import type { ShardSums } from '../../db/run-counters.js';
import { runResults } from '../../db/run-results.js';
import { DEFAULT_THRESHOLD, type Run, type RunMetric, type RunProgress } from '../../schemas/runs.js';
import { emptySums, scorePoint } from '../monitors/statistics.js';
import { passFigures, type PassFigures } from './pass-rates.js';
import { NO_RUN_VOICE } from './run-voice.js';

/** How a run reads: its counters (summed from its shards until it finished), metrics and figures. */
/**
 * What a run's counters say: from its shards while sessions are being counted (`sums`), from its
 * own item once they were summed into it (or for a run without shards). Each shard only grows and
 * is read consistently, so the progress never goes backwards: `completed` and `failed` only grow,
 * `pending` only shrinks. A cancelled run's sessions that have not started never will (the cancel
 * job fails them, or their first step does): they show as failed at once.
 */
export function countersOf(
  run: StoredRun,
  sums: ShardSums | undefined,
): { progress: RunProgress; stats: Record<string, MetricStat> } {
  if (run._final || !run._shards || !sums) return { progress: run.progress, stats: run._stats };
  const total = run.progress.total;
  const done = sums.completed + sums.failed;
  const started = Math.max(sums.started, done);
  let pending = Math.max(0, total - started);
  let failed = sums.failed;
  if (run.status === 'CANCELLED') {
    failed += pending;
    pending = 0;
  }
  return {
    progress: { total, pending, running: Math.max(0, started - done), completed: sums.completed, failed },
    stats: sums.stats,
  };
}

/** A stored run with the pass figures kept once it finished (absent before, and on runs older than them). */
export type RunWithFigures = StoredRun & { _passFigures?: Record<string, PassFigures> };

/**
 * The record a client sees: internal fields dropped, per-metric scores derived from the counters
 * (its shards' sums while it runs), pass rates from the figures kept when the run finished. Runs
 * stored before repetitions and thresholds existed read as one repetition at 0.5.
 */
export function runView(run: RunWithFigures, sums?: ShardSums): Run {
  const rest = Object.fromEntries(Object.entries(run).filter(([k]) => !k.startsWith('_'))) as Omit<
    StoredRun,
    '_plan' | '_stats' | '_metricNames'
  >;
  const repetitions = run.repetitions ?? 1;
  const counters = countersOf(run, sums);
  const metrics: RunMetric[] = run.metricIds.map((metricId) => {
    const st = counters.stats[metricId] ?? { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 };
    const pass = run._passFigures?.[metricId] ?? countedPasses(run, st);
    const point = scorePoint(
      st.n === 0 ? emptySums() : { n: st.n, sw: st.n, swx: st.sx, sw2: st.n, sw2x: st.sx, sw2x2: st.sxx },
    );
    return {
      metricId,
      name: run._metricNames[metricId] ?? metricId,
      evaluated: st.n,
      failed: st.failed,
      skipped: st.skipped,
      score: point.score,
      confidenceInterval: point.confidenceInterval,
      passRate: pass?.passRate ?? null,
      ...(repetitions > 1 ? { passAllK: pass?.passAllK ?? null, passAnyK: pass?.passAnyK ?? null } : {}),
    };
  });
  const p = counters.progress;
  return {
    ...rest,
    repetitions,
    threshold: run.threshold ?? DEFAULT_THRESHOLD,
    channel: run.channel ?? 'HTTP',
    ...(run.channel === 'PHONE'
      ? { voice: { ...NO_RUN_VOICE, ...run._voice, bargeInRecovery: run._bargeInRecovery ?? null } }
      : {}),
    progress: { total: p.total, pending: p.pending, running: p.running, completed: p.completed, failed: p.failed },
    metrics,
  };
}

/**
 * The pass rate of a finished run of one repetition that counted its passes: the evaluations that
 * reached the threshold over the scored ones (what `passFigures` computes from the evaluations).
 */
function countedPasses(run: StoredRun, st: MetricStat): PassFigures | undefined {
  if (!run._passCounted || (run.repetitions ?? 1) > 1) return undefined;
  if (run.status !== 'COMPLETED' && run.status !== 'FAILED') return undefined;
  return { passRate: st.n === 0 ? null : (st.np ?? 0) / st.n, passAllK: null, passAnyK: null };
}

/** The pass figures of each metric of a run, from its sessions' evaluations. */
export async function computePassFigures(run: StoredRun): Promise<Record<string, PassFigures>> {
  const results = await runResults(run.id);
  return passFigures(
    results.map((r) => ({
      testCaseId: r.session.testCaseId,
      repetition: r.session.repetition ?? 1,
      evaluations: r.evaluations,
    })),
    run.metricIds,
    run.threshold ?? DEFAULT_THRESHOLD,
    run.repetitions ?? 1,
  );
}
