/**
 * The floors a CI job sets on a run, pure: `--min-score <metric>=<x>` and `--min-pass-rate
 * [<metric>=]<x>` on this run's figures, `--max-drop [<metric>=]<x>` on a metric's fall against the
 * baseline, whatever its significance. A floor without a metric holds for every metric. A broken
 * floor makes evalctl exit 1, its message naming the metric, the figure and the floor.
 */
import { InvalidArgumentError } from 'commander';
import type { Run, RunComparison } from '../shared/schemas/runs.js';

export const GATE_FLAGS = ['--min-score', '--min-pass-rate', '--max-drop'] as const;
export type GateFlag = (typeof GATE_FLAGS)[number];

/** One floor as given on the command line. */
export interface Gate {
  flag: GateFlag;
  /** A metric's name or id; undefined: every metric. */
  metric?: string;
  limit: number;
}

/** One floor checked on one metric. */
export interface GateCheck {
  flag: GateFlag;
  metricId: string;
  metric: string;
  /** The score, the pass rate, or the fall (baseScore − score); null when there is none. */
  figure: number | null;
  limit: number;
  held: boolean;
  message: string;
}

/** Figures are compared to 9 decimal places: a fall of 0.1 computed as 0.10000000000000009 is 0.1. */
const EPSILON = 1e-9;
const num = (x: number): string => x.toFixed(3);

/** How the flag is written back in a message: as it was given. */
export const gateText = (g: Gate): string => `${g.flag} ${g.metric === undefined ? '' : `${g.metric}=`}${g.limit}`;

/**
 * Commander's parser of a floor flag (repeatable): `<metric>=<x>` (the last `=` splits, so a name
 * may hold one) or, unless `metricRequired`, a bare `<x>` for every metric; x a number from 0 to 1.
 */
export function gateArgument(flag: GateFlag, metricRequired: boolean) {
  const form = metricRequired ? '<metric>=<x>' : '<x> or <metric>=<x>';
  return (value: string, previous: Gate[] = []): Gate[] => {
    const at = value.lastIndexOf('=');
    const metric = at >= 0 ? value.slice(0, at).trim() : undefined;
    const text = (at >= 0 ? value.slice(at + 1) : value).trim();
    const limit = Number(text);
    if ((metricRequired && metric === undefined) || metric === '')
      throw new InvalidArgumentError(
        `must be ${form}: a metric's name or id, then a number from 0 to 1 (e.g. text_similarity=0.5)`,
      );
    if (text === '' || !Number.isFinite(limit) || limit < 0 || limit > 1)
      throw new InvalidArgumentError(`must be ${form} with x a number from 0 to 1`);
    return [...previous, { flag, ...(metric === undefined ? {} : { metric }), limit }];
  };
}

type NamedMetric = { metricId: string; name: string };
const names = (metric: string, m: NamedMetric) => m.metricId === metric || m.name === metric;

/**
 * The floors that name a metric the run does not have, each as one line naming the flag and the
 * run's metrics; empty when every floor names one of them.
 */
export function unknownGateMetrics(gates: readonly Gate[], run: Pick<Run, 'id' | 'metrics'>): string[] {
  const known = run.metrics.map((m) => m.name).join(', ') || 'none';
  return gates
    .filter((g) => g.metric !== undefined && !run.metrics.some((m) => names(g.metric!, m)))
    .map((g) => `${g.flag}: run ${run.id} has no metric named ${JSON.stringify(g.metric)} (its metrics: ${known})`);
}

function floorCheck(g: Gate, m: Run['metrics'][number]): GateCheck {
  const what = g.flag === '--min-score' ? 'score' : 'pass rate';
  const figure = g.flag === '--min-score' ? m.score : m.passRate;
  const base = { flag: g.flag, metricId: m.metricId, metric: m.name, figure, limit: g.limit };
  if (figure === null || figure === undefined)
    return {
      ...base,
      figure: null,
      held: false,
      message: `${m.name}: no ${what} (no evaluation of it succeeded), so it is not above the floor ${g.limit} (${gateText(g)})`,
    };
  const held = figure >= g.limit - EPSILON;
  return {
    ...base,
    held,
    message: held
      ? `${m.name}: ${what} ${num(figure)} is at or above the floor ${g.limit} (${gateText(g)})`
      : `${m.name}: ${what} ${num(figure)} is below the floor ${g.limit} (${gateText(g)})`,
  };
}

function dropCheck(g: Gate, m: RunComparison['metrics'][number], baseRunId: string): GateCheck {
  const base = { flag: g.flag, metricId: m.metricId, metric: m.name, limit: g.limit };
  if (m.difference === null || m.baseScore === null || m.score === null)
    return {
      ...base,
      figure: null,
      held: false,
      message: `${m.name}: no test case was scored in both runs, so its fall against ${baseRunId} cannot be checked (${gateText(g)})`,
    };
  const fall = -m.difference;
  const held = fall <= g.limit + EPSILON;
  const moved = `${num(m.baseScore)} → ${num(m.score)} over ${m.n} paired case${m.n === 1 ? '' : 's'}`;
  return {
    ...base,
    figure: fall,
    held,
    message: held
      ? `${m.name}: ${fall > 0 ? `fell by ${num(fall)}` : `did not fall (${m.difference >= 0 ? '+' : ''}${num(m.difference)})`} against ${baseRunId} (${moved}), within the ${g.limit} allowed (${gateText(g)})`
      : `${m.name}: fell by ${num(fall)} against ${baseRunId} (${moved}), more than the ${g.limit} allowed (${gateText(g)})`,
  };
}

/** A metric neither run could be paired on. */
const notCompared: RunComparison['metrics'][number] = {
  metricId: '',
  name: '',
  n: 0,
  onlyInBase: 0,
  onlyInRun: 0,
  baseScore: null,
  score: null,
  difference: null,
  standardError: null,
  confidenceInterval: null,
  pValue: null,
  adjustedPValue: null,
  verdict: 'not_enough_data',
  minimumDetectableEffect: null,
};

/** Every floor checked on every metric it applies to, in the order the floors were given. */
export function checkGates(gates: readonly Gate[], run: Run, comparison?: RunComparison): GateCheck[] {
  const out: GateCheck[] = [];
  for (const g of gates) {
    if (g.flag === '--max-drop') {
      if (!comparison) continue; // refused before the run: --max-drop needs --baseline
      const base = comparison.baseRunId;
      if (g.metric === undefined) out.push(...comparison.metrics.map((m) => dropCheck(g, m, base)));
      else
        for (const m of run.metrics.filter((x) => names(g.metric!, x))) {
          // A metric named on purpose that the comparison could not pair is not a fall that held.
          const compared = comparison.metrics.find((c) => c.metricId === m.metricId);
          out.push(dropCheck(g, compared ?? { ...notCompared, metricId: m.metricId, name: m.name }, base));
        }
      continue;
    }
    const metrics = run.metrics.filter((m) => g.metric === undefined || names(g.metric, m));
    out.push(...metrics.map((m) => floorCheck(g, m)));
  }
  return out;
}

/** The checks as text for a CI log: a head line, then one line per check, broken ones first. */
export function gatesSummary(checks: readonly GateCheck[]): string {
  const broken = checks.filter((c) => !c.held);
  const head =
    checks.length === 0
      ? 'gates: no metric to check'
      : broken.length
        ? `gates: ${broken.length} of ${checks.length} checks broken`
        : `gates: held (${checks.length} check${checks.length === 1 ? '' : 's'})`;
  return [
    head,
    ...broken.map((c) => `  BROKEN  ${c.message}`),
    ...checks.filter((c) => c.held).map((c) => `  held    ${c.message}`),
  ].join('\n');
}
