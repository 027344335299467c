import { labelsOfRun, type LabelRow } from '../../db/review.js';
import type { CorrectedScore } from '../../schemas/review.js';
import { evaluationsOf, judgeScore } from './agreement.js';
import { ppiMean } from './statistics.js';

/** What human labels add to one metric of a run. */
export interface RunMetricLabels {
  /** The run's sessions with a label of the metric (sampled or picked). */
  labels: number;
  corrected: CorrectedScore | null;
}

/**
 * The corrected score of each metric of a run (prediction-powered inference, PPI++): the judge's
 * scores on every session, corrected with the labels of randomly *sampled* review items only — a
 * hand-picked item is not a random sample and would bias the estimate, so a session labelled only
 * by hand counts among the unlabelled ones. Reads nothing but the run's label index when the run
 * has no label.
 */
export async function runMetricLabels(
  runId: string,
  sessionIds: () => Promise<string[]>,
  metricIds: readonly string[],
): Promise<Map<string, RunMetricLabels>> {
  const rows = await labelsOfRun(runId);
  const out = new Map<string, RunMetricLabels>(metricIds.map((m) => [m, { labels: 0, corrected: null }]));
  if (rows.length === 0) return out;
  const ids = await sessionIds();
  const evaluations = await evaluationsOf(ids);
  for (const metricId of metricIds) {
    const ofMetric = rows.filter((r) => r.metricId === metricId);
    const labelled = new Set(ofMetric.map((r) => r.sessionId));
    const sampled = new Map<string, number[]>();
    for (const r of ofMetric.filter((x: LabelRow) => x.origin === 'sample'))
      sampled.set(r.sessionId, [...(sampled.get(r.sessionId) ?? []), r.score]);
    const labeled: { judge: number; human: number }[] = [];
    const unlabeled: number[] = [];
    for (const sessionId of ids) {
      const judge = judgeScore(evaluations.get(sessionId) ?? [], metricId);
      if (judge === undefined) continue;
      const human = sampled.get(sessionId);
      if (human) labeled.push({ judge, human: human.reduce((a, b) => a + b, 0) / human.length });
      else unlabeled.push(judge);
    }
    const labels = [...labelled].filter((id) => evaluations.has(id)).length;
    out.set(metricId, { labels, corrected: ppiMean(labeled, unlabeled) });
  }
  return out;
}
