import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys, PLATFORM_ORG } from './keys.js';
import { batchGet, queryPrefix } from './query.js';
import { toRecord } from './records.js';
import type { EvaluatorModel } from '../schemas/metrics.js';

export async function listModels(): Promise<EvaluatorModel[]> {
  const items = await queryPrefix(`ORG#${PLATFORM_ORG}`, 'MODEL#');
  return items.map((i) => toRecord<EvaluatorModel>(i));
}

/** The named models that exist (one BatchGet; none read when no name is given). */
export async function getModels(names: string[]): Promise<EvaluatorModel[]> {
  if (names.length === 0) return [];
  return (await batchGet(names.map((n) => keys.model(n)))).map((i) => toRecord<EvaluatorModel>(i));
}

/**
 * Models are platform settings that change rarely, and every judged evaluation and simulated turn
 * looks one up (twice: its provider id and its credits): a process keeps what it read for a minute.
 */
const MODEL_CACHE_MS = 60_000;
const cached = new Map<string, { at: number; model: EvaluatorModel | undefined }>();

export async function getModel(name: string): Promise<EvaluatorModel | undefined> {
  const hit = cached.get(name);
  if (hit && Date.now() - hit.at < MODEL_CACHE_MS) return hit.model;
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.model(name) }));
  const model = out.Item ? toRecord<EvaluatorModel>(out.Item) : undefined;
  cached.set(name, { at: Date.now(), model });
  return model;
}

export async function putModel(model: EvaluatorModel): Promise<EvaluatorModel> {
  cached.delete(model.name);
  await doc.send(
    new PutCommand({ TableName: tableName, Item: { ...keys.model(model.name), entity: 'MODEL', ...model } }),
  );
  return model;
}
