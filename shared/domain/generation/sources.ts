/**
 * What a generation step reads: the product, the chunks of the test's documents (parsed once per
 * warm worker) and the seed cases; an action whose sources are missing fails.
 */
import { getRecord } from '../../db/catalog.js';
import type { GeneratingTest, GenerationState } from '../../db/generation.js';
import { testCasePage } from '../../db/runs.js';
import type { Product } from '../../schemas/products.js';
import { productEntity } from '../common/entities.js';
import { chunkText } from './chunking.js';
import { readDocument } from './documents.js';
import type { TestCase } from '../../schemas/tests.js';

/** Cases read as seeds (augment, SCENARIOS from a source test), and how many one step shows. */
const SEED_POOL = 200;
export const SEEDS_PER_STEP = 10;

export class GenerationFailure extends Error {}

export interface Sources {
  product: Product;
  /** QUALITY: the ground truth's chunks (undefined: the product is the source). */
  chunks?: string[];
  /** SCENARIOS: the data catalog's chunks. */
  catalog?: string[];
  /** augment: the test's cases; SCENARIOS: the source test's cases. */
  seeds: TestCase[];
}

/** Parsed documents of recent actions, so the steps of one action in a warm worker read each file once. */
const documentCache = new Map<string, string[]>();

async function chunksOf(orgId: string, field: string, uri: string): Promise<string[]> {
  const cached = documentCache.get(`${orgId} ${uri}`);
  if (cached) return cached;
  const chunks = chunkText(await readDocument(orgId, field, uri));
  if (documentCache.size >= 4) documentCache.delete(documentCache.keys().next().value!);
  documentCache.set(`${orgId} ${uri}`, chunks);
  return chunks;
}

async function casesOfTest(orgId: string, testId: string): Promise<TestCase[]> {
  return (await testCasePage(testId, SEED_POOL)).cases.filter((c) => c.organizationId === orgId);
}

export async function loadSources(test: GeneratingTest, gen: GenerationState): Promise<Sources> {
  const org = test.organizationId;
  const product = await getRecord<Product>(productEntity, org, test.productId, { includeDeleted: true });
  const sources: Sources = { product, seeds: [] };
  if (gen.action === 'augment') {
    sources.seeds = await casesOfTest(org, test.id);
    if (sources.seeds.length === 0) throw new GenerationFailure(`test ${test.id} has no test cases to augment`);
    return sources;
  }
  if (test.type === 'QUALITY' && test.groundTruthUri)
    sources.chunks = await chunksOf(org, 'groundTruthUri', test.groundTruthUri);
  if (test.type === 'SCENARIOS' && test.dataCatalogUri)
    sources.catalog = await chunksOf(org, 'dataCatalogUri', test.dataCatalogUri);
  if (test.type === 'SCENARIOS' && test.sourceTestId) {
    sources.seeds = await casesOfTest(org, test.sourceTestId);
    if (sources.seeds.length === 0)
      throw new GenerationFailure(`sourceTestId ${test.sourceTestId} has no test cases to build scenarios from`);
  }
  return sources;
}

/** `n` seeds for step `step`, taken round the pool so successive steps see different ones. */
export function seedWindow<T>(pool: T[], step: number, n = SEEDS_PER_STEP): T[] {
  if (pool.length === 0) return [];
  const start = (step * n) % pool.length;
  return Array.from({ length: Math.min(n, pool.length) }, (_, i) => pool[(start + i) % pool.length]!);
}
