import { getModel, listModels, putModel } from '../../db/models.js';
import type { ModelPut } from '../../schemas/metrics.js';
import { nowIso } from '../common/ids.js';
import { toIsoDateTime } from '../common/dates.js';
import type { EvaluatorModel } from '../../schemas/metrics.js';

export async function listEvaluatorModels(): Promise<{ items: EvaluatorModel[]; total: number }> {
  const items = (await listModels()).sort((a, b) => a.name.localeCompare(b.name));
  return { items, total: items.length };
}

/** ADMIN only (route access): creates or replaces a model's settings; omitted fields keep their value. */
export async function upsertEvaluatorModel(
  name: string,
  body: ModelPut,
): Promise<{ model: EvaluatorModel; created: boolean }> {
  const current = await getModel(name);
  const now = nowIso();
  const model: EvaluatorModel = {
    name,
    provider: body.provider,
    providerModelId: body.providerModelId ?? current?.providerModelId ?? name,
    creditsPerEvaluation: body.creditsPerEvaluation ?? current?.creditsPerEvaluation ?? 1,
    unselectableAt:
      body.unselectableAt === undefined
        ? (current?.unselectableAt ?? null)
        : body.unselectableAt && toIsoDateTime(body.unselectableAt, 'unselectableAt'),
    disabledAt:
      body.disabledAt === undefined
        ? (current?.disabledAt ?? null)
        : body.disabledAt && toIsoDateTime(body.disabledAt, 'disabledAt'),
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
  };
  await putModel(model);
  return { model, created: !current };
}
