import type { AuthContext } from '../../auth/context.js';
import { getRecord, listOrgRecords } from '../../db/catalog.js';
import { getSession } from '../../db/sessions.js';
import type { StoredSpecification } from '../../schemas/specifications.js';
import { specificationEntity, testEntity } from '../common/entities.js';
import { missingParams, type EvaluationSources } from './context.js';
import { loadSources } from './sources.js';
import { visibleMetrics } from '../metrics/metrics.js';
import type { Static } from '@sinclair/typebox';
import type { CompatibilityEntryRecord } from '../../schemas/metrics.js';
import type { Metric } from '../../schemas/metrics.js';
import type { TestRecord } from '../../schemas/tests.js';

export type Relevance = 'linked' | 'matching' | 'none';

/** As the API answers it: the type of its response schema. */
export type CompatibilityEntry = Static<typeof CompatibilityEntryRecord>;

const RELEVANCE_ORDER: Record<Relevance, number> = { linked: 0, matching: 1, none: 2 };

/**
 * Pure: one entry per candidate metric, ordered by relevance (linked, matching, none), then
 * compatible first, then name.
 */
export function compatibilityEntries(
  src: EvaluationSources,
  metrics: Metric[],
  testContext: { test: TestRecord; specs: StoredSpecification[] } | undefined,
): CompatibilityEntry[] {
  const sameProductSpecsOfType = new Set(
    testContext
      ? testContext.specs
          .filter((s) => s.productId === testContext.test.productId && s.testType === testContext.test.type)
          .map((s) => s.id)
      : [],
  );
  const entries = metrics.map((m): CompatibilityEntry => {
    const missing = missingParams(src, m.evaluationParams);
    let relevance: Relevance = 'none';
    if (testContext) {
      if (testContext.test.specificationId && m.specificationIds.includes(testContext.test.specificationId))
        relevance = 'linked';
      else if (m.specificationIds.some((id) => sameProductSpecsOfType.has(id))) relevance = 'matching';
    }
    return {
      id: m.id,
      name: m.name,
      isCompatible: missing.length === 0,
      relevance,
      source: m.source ?? null,
      description: m.description || null,
      incompatibilityReason: missing.length ? `missing ${missing.join('; ')}` : null,
    };
  });
  return entries.sort(
    (a, b) =>
      RELEVANCE_ORDER[a.relevance] - RELEVANCE_ORDER[b.relevance] ||
      Number(b.isCompatible) - Number(a.isCompatible) ||
      a.name.localeCompare(b.name, 'en') ||
      a.id.localeCompare(b.id),
  );
}

/** GET /sessions/{id}/metricCompatibility: candidates are the caller's and predefined metrics, live and not legacy. */
export async function metricCompatibility(
  auth: AuthContext,
  sessionId: string,
  limit = 100,
): Promise<CompatibilityEntry[]> {
  const session = await getSession(auth.organizationId, sessionId);
  const [src, metrics] = await Promise.all([loadSources(session), visibleMetrics(auth.organizationId)]);
  let testContext: { test: TestRecord; specs: StoredSpecification[] } | undefined;
  if (session.testId) {
    const test = await getRecord<TestRecord>(testEntity, auth.organizationId, session.testId, { includeDeleted: true });
    testContext = { test, specs: await listOrgRecords<StoredSpecification>(specificationEntity, auth.organizationId) };
  }
  const candidates = metrics.filter((m) => m.legacyAt === null);
  return compatibilityEntries(src, candidates, testContext).slice(0, limit);
}
