import type { AuthContext } from '../../auth/context.js';
import { runSessionIds } from '../../db/runs.js';
import type { Run } from '../../schemas/runs.js';
import { getRunFor } from '../runs/runs.js';
import { runMetricLabels } from './corrected.js';

/**
 * GET /runs/{id}: the run, each metric with its human labels and its score corrected by them
 * (lists and webhook events carry the run without them: each would read every labelled run's
 * evaluations).
 */
export async function getRunWithLabels(auth: AuthContext, id: string): Promise<Run> {
  const view = await getRunFor(auth, id);
  const labels = await runMetricLabels(view.id, () => runSessionIds(view.id), view.metricIds);
  return { ...view, metrics: view.metrics.map((m) => ({ ...m, ...labels.get(m.metricId)! })) };
}
