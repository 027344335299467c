import type { AuthContext } from '../../auth/context.js';
import { getVisibleMetric } from '../../db/metrics.js';
import { labelsOfMetric } from '../../db/review.js';
import { listEvaluations } from '../../db/sessions.js';
import { ValidationError } from '../../errors.js';
import type { Evaluation } from '../../schemas/sessions.js';
import type { AgreementQuery } from '../../schemas/review.js';
import { agreementOf, type AgreementFigures } from './statistics.js';

/** Sessions whose evaluations are read at once. */
const READ_CONCURRENCY = 16;

/** The judge's score of a session: the mean of its SUCCESS evaluations of the metric; undefined without one. */
export function judgeScore(evaluations: readonly Evaluation[], metricId: string): number | undefined {
  const scores = evaluations
    .filter((e) => e.metricId === metricId && e.status === 'SUCCESS' && typeof e.score === 'number')
    .map((e) => e.score as number);
  return scores.length === 0 ? undefined : scores.reduce((a, b) => a + b, 0) / scores.length;
}

/** Reads each session's evaluations, a few sessions at a time. */
export async function evaluationsOf(sessionIds: readonly string[]): Promise<Map<string, Evaluation[]>> {
  const out = new Map<string, Evaluation[]>();
  let next = 0;
  const worker = async () => {
    while (next < sessionIds.length) {
      const id = sessionIds[next++]!;
      out.set(id, await listEvaluations(id));
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, sessionIds.length) }, worker));
  return out;
}

/**
 * GET /metrics/{id}/agreement: over the sessions that have a SUCCESS evaluation of the metric and
 * at least one human label of it (any queue, picked or sampled; `productId` keeps one product's,
 * `from`/`to` the labels given in that range), the judge's score against the people's.
 */
export async function metricAgreement(
  auth: AuthContext,
  metricId: string,
  query: AgreementQuery,
): Promise<{ metricId: string } & AgreementFigures> {
  await getVisibleMetric(auth.organizationId, metricId);
  if (query.from && query.to && query.from > query.to)
    throw new ValidationError(`from ${query.from} is after to ${query.to}`);
  const rows = (await labelsOfMetric(auth.organizationId, metricId)).filter(
    (r) =>
      (!query.productId || r.productId === query.productId) &&
      (!query.from || r.createdAt >= query.from) &&
      (!query.to || r.createdAt <= query.to),
  );
  const labelsBySession = new Map<string, number[]>();
  for (const r of rows) labelsBySession.set(r.sessionId, [...(labelsBySession.get(r.sessionId) ?? []), r.score]);
  const evaluations = await evaluationsOf([...labelsBySession.keys()]);
  const sessions: { judge: number; labels: number[] }[] = [];
  for (const [sessionId, labels] of [...labelsBySession].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const judge = judgeScore(evaluations.get(sessionId) ?? [], metricId);
    if (judge !== undefined) sessions.push({ judge, labels });
  }
  return { metricId, ...agreementOf(sessions) };
}
