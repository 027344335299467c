/**
 * Pass rates of a run, pure: whether each case passes each metric in each repetition,
 * and the shares that follow. A repetition passes when its session has at least one SUCCESS
 * evaluation of the metric and every one scored at least the threshold (a multi-turn agent that
 * fails one turn did not pass the case).
 */

/** The outcome of one evaluation, as far as pass rates are concerned. */
export interface ScoredEvaluation {
  metricId: string;
  status: string;
  score: number | null;
}

/** One session of a run with its evaluations. */
export interface RepetitionResult {
  testCaseId: string | null;
  repetition: number;
  evaluations: readonly ScoredEvaluation[];
}

export interface PassFigures {
  /** The share of SUCCESS evaluations scoring ≥ threshold; null with none. */
  passRate: number | null;
  /** pass^k: the share of cases passing in every repetition; null with no scored case. */
  passAllK: number | null;
  /** pass@k: the share of cases passing in at least one repetition; null with no scored case. */
  passAnyK: number | null;
}

/** A SUCCESS evaluation with a score: the only kind a pass rate counts. */
export const isScored = (e: ScoredEvaluation): e is ScoredEvaluation & { score: number } =>
  e.status === 'SUCCESS' && typeof e.score === 'number';

/** The figures of each metric over a run's sessions; `repetitions` is the run's k. */
export function passFigures(
  sessions: readonly RepetitionResult[],
  metricIds: readonly string[],
  threshold: number,
  repetitions: number,
): Record<string, PassFigures> {
  const out: Record<string, PassFigures> = {};
  for (const metricId of metricIds) {
    let scored = 0;
    let passing = 0;
    // case → repetition → still passing (false once one evaluation fell below the threshold)
    const byCase = new Map<string, Map<number, boolean>>();
    for (const s of sessions) {
      for (const e of s.evaluations) {
        if (e.metricId !== metricId || !isScored(e)) continue;
        scored++;
        const pass = e.score >= threshold;
        if (pass) passing++;
        if (s.testCaseId === null) continue;
        let reps = byCase.get(s.testCaseId);
        if (!reps) byCase.set(s.testCaseId, (reps = new Map()));
        reps.set(s.repetition, (reps.get(s.repetition) ?? true) && pass);
      }
    }
    const cases = [...byCase.values()];
    const passedIn = (reps: Map<number, boolean>) =>
      Array.from({ length: repetitions }, (_, i) => reps.get(i + 1) === true).filter(Boolean).length;
    out[metricId] = {
      passRate: scored === 0 ? null : passing / scored,
      passAllK: cases.length === 0 ? null : cases.filter((r) => passedIn(r) === repetitions).length / cases.length,
      passAnyK: cases.length === 0 ? null : cases.filter((r) => passedIn(r) > 0).length / cases.length,
    };
  }
  return out;
}
