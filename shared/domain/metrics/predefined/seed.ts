import { putPredefinedMetric } from '../../../db/metrics.js';
import { getModel, putModel } from '../../../db/models.js';
import type { EvaluationParam, MetricSource } from '../../evaluation/params.js';
import type { StoredMetric } from '../../../schemas/metrics.js';
import metricsData from './metrics.json' with { type: 'json' };
import modelsData from './models.json' with { type: 'json' };

interface PredefinedMetricData {
  name: string;
  source: string;
  description: string;
  evaluationParams: string[];
  judgePrompt: string | null;
  evaluatorModelName: string | null;
  tags: string[];
}

const SEEDED_AT = '2026-01-01T00:00:00.000Z';

/** Predefined metrics have stable ids (`met_<name>`) and families (`mgrp_<name>`), so seeding is idempotent. */
export function predefinedMetrics(): StoredMetric[] {
  return (metricsData as PredefinedMetricData[]).map((m) => ({
    id: `met_${m.name}`,
    metricGroupId: `mgrp_${m.name}`,
    parentMetricId: null,
    organizationId: null,
    userId: 'platform',
    name: m.name,
    evaluationParams: m.evaluationParams as EvaluationParam[],
    source: m.source as MetricSource,
    judgePrompt: m.judgePrompt,
    tags: m.tags,
    description: m.description,
    documentationUrl: null,
    evaluatorModelName: m.evaluatorModelName,
    areEvalParamsTop: false,
    isBeingOptimized: false,
    userGroupIds: [],
    createdAt: SEEDED_AT,
  }));
}

/**
 * Seeds evaluator models (only those missing: an operator's later settings win) and predefined
 * metrics (definitions rewritten from the data file). Safe to run any number of times.
 */
export async function seedPlatform(): Promise<{ models: number; metrics: number }> {
  let models = 0;
  for (const m of modelsData) {
    if (await getModel(m.name)) continue;
    await putModel({ ...m, createdAt: SEEDED_AT, updatedAt: SEEDED_AT });
    models++;
  }
  const metrics = predefinedMetrics();
  for (const metric of metrics) await putPredefinedMetric(metric);
  return { models, metrics: metrics.length };
}
