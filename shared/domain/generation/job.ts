import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { keys } from '../../db/keys.js';
import { getRecord } from '../../db/catalog.js';
import { discardObjects } from '../../db/offload.js';
import {
  claimStep,
  closeCharge,
  commitStep,
  getGeneratingTest,
  markQueued,
  releaseLease,
  type GeneratingTest,
  type GenerationState,
} from '../../db/generation.js';
import { getOrganization } from '../../db/organizations.js';
import { testCasePage } from '../../db/runs.js';
import { callLlm, creditsPerCall, llmConfig, type LlmMessage } from '../../llm/client.js';
import { generatorModelName, resolveModel } from '../../llm/models.js';
import { failedEveryReceive, processBatch } from '../../queue/batch.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import { enqueueGenerationJobs, parseGenerationJob, type GenerationJob } from '../../queue/generation-queue.js';
import type { Product } from '../../schemas/products.js';
import type { TestCase } from '../../schemas/tests.js';
import { cycleOf } from '../accounts/organization.js';
import { productEntity } from '../common/entities.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import { offloadCases } from '../tests/tests.js';
import { chunkText } from './chunking.js';
import { DocumentError, readDocument } from './documents.js';
import { ACTIVE_STATUS, finishGeneration } from './lifecycle.js';
import { planSteps, type GenerationStep } from './plan.js';
import {
  qualityCasesSchema,
  qualityMessages,
  redTeamAttacksSchema,
  redTeamMessages,
  refineAttacks,
  refineQuality,
  refineScenarios,
  scenarioCasesSchema,
  scenarioMessages,
  seedText,
  sourceKey,
  writtenStrategies,
  type QualityCases,
  type RedTeamAttacks,
  type ScenarioCases,
  type SourceBlock,
} from './prompts.js';
import { spreadEvenly, type AttackSlot } from './spread.js';
import { isDeterministic, transform } from './strategies.js';

/**
 * The generation job: one step of one action per message, at most one call of
 * the generator, then the next step on the queue. Idempotent under redelivery: a step is taken
 * with a lease, its credits are reserved with the lease and settled in the same transaction that
 * writes its cases and moves the cursor, so a step never writes cases or charges credits twice.
 * A cancelled test is left alone at its next step.
 */

/** How long a worker holds a step: longer than the generator function's timeout. */
export const STEP_LEASE_MS = 6 * 60_000;
/** Cases read as seeds (augment, SCENARIOS from a source test), and how many one step shows. */
const SEED_POOL = 200;
const SEEDS_PER_STEP = 10;

export class GenerationFailure extends Error {}

interface Sources {
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

async function loadSources(test: GeneratingTest, gen: GenerationState): Promise<Sources> {
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
function seedWindow<T>(pool: T[], step: number, n = SEEDS_PER_STEP): T[] {
  if (pool.length === 0) return [];
  const start = (step * n) % pool.length;
  return Array.from({ length: Math.min(n, pool.length) }, (_, i) => pool[(start + i) % pool.length]!);
}

/** A new case of the test with every field empty (the step fills its type's fields). */
function blankCase(test: GeneratingTest, isAugmented: boolean, now: string): TestCase {
  return {
    id: newId('testCase'),
    organizationId: test.organizationId,
    productId: test.productId,
    testId: test.id,
    index: 0,
    input: null,
    expectedOutput: null,
    expectedTools: [],
    context: null,
    variant: null,
    strategy: null,
    languageCode: test.languageCode,
    goal: null,
    userPersona: null,
    scenario: null,
    stoppingCriterias: [],
    maxIterations: null,
    isAugmented,
    createdAt: now,
  };
}

interface Call {
  messages: LlmMessage[];
  schemaName: string;
  schema: object;
  refine: (value: never) => string | undefined;
  /** The cases of a valid answer. */
  cases: (value: never) => Partial<TestCase>[];
}

function attackCall(
  test: GeneratingTest,
  sources: Sources,
  variant: string,
  slots: AttackSlot[],
  seeds: string[] = [],
): Call {
  return {
    messages: redTeamMessages({ test, product: sources.product }, variant, slots, seeds),
    schemaName: 'red_team_attacks',
    schema: redTeamAttacksSchema(slots.length, writtenStrategies(slots)),
    refine: refineAttacks(slots) as Call['refine'],
    cases: ((answer: RedTeamAttacks) =>
      slots.flatMap((slot, i) => {
        const a = answer.attacks[i]!;
        const original = a.attack.trim();
        return slot.strategies.map((strategy) => ({
          variant: slot.variant,
          strategy,
          input: isDeterministic(strategy) ? transform(strategy, original) : a.rewrites![strategy]!.trim(),
        }));
      })) as Call['cases'],
  };
}

function qualityCall(
  test: GeneratingTest,
  sources: Sources,
  blocks: (SourceBlock & { context: string | null })[],
  mode: 'document' | 'product' | 'augment',
): Call {
  return {
    messages: qualityMessages({ test, product: sources.product }, blocks, mode),
    schemaName: 'quality_cases',
    schema: qualityCasesSchema(blocks),
    refine: refineQuality(blocks) as Call['refine'],
    cases: ((answer: QualityCases) =>
      blocks.flatMap((b) =>
        (answer.cases[sourceKey(b.source)] ?? [])
          .filter((c) => c.input.trim() !== '' && c.expectedOutput.trim() !== '')
          .slice(0, b.count)
          .map((c) => ({
            input: c.input.trim(),
            expectedOutput: c.expectedOutput.trim(),
            context: b.context,
            variant: b.variant,
          })),
      )) as Call['cases'],
  };
}

function scenarioCall(
  test: GeneratingTest,
  sources: Sources,
  strategy: string | null,
  count: number,
  step: number,
  augment: boolean,
): Call {
  const seeds = seedWindow(sources.seeds, step).map(seedText);
  const catalog = sources.catalog ? seedWindow(sources.catalog, step, 3).join('\n\n') : undefined;
  return {
    messages: scenarioMessages({ test, product: sources.product }, strategy, count, seeds, catalog, augment),
    schemaName: 'scenario_cases',
    schema: scenarioCasesSchema(count),
    refine: refineScenarios(count) as Call['refine'],
    cases: ((answer: ScenarioCases) =>
      answer.scenarios.slice(0, count).map((s) => ({
        goal: s.goal.trim(),
        userPersona: test.customUserPersona ?? s.userPersona.trim(),
        scenario: s.scenario.trim() || null,
        stoppingCriterias: s.stoppingCriterias
          .map((c) => c.trim())
          .filter((c) => c !== '')
          .slice(0, 50),
        maxIterations: Math.min(100, Math.max(1, Math.round(s.maxIterations))),
        strategy,
      }))) as Call['cases'],
  };
}

/** What step `index` of the action asks the generator, and how its answer becomes cases. */
function callFor(
  test: GeneratingTest,
  _gen: GenerationState,
  sources: Sources,
  step: GenerationStep,
  index: number,
): Call {
  if (step.kind === 'attacks') return attackCall(test, sources, step.variant, step.slots);
  if (step.kind === 'scenarios') return scenarioCall(test, sources, step.strategy, step.count, index, false);
  if (step.kind === 'quality') {
    const blocks = step.cells.map((cell, i) => {
      const context = sources.chunks ? sources.chunks[cell.chunk]! : null;
      return {
        source: i + 1,
        text: context ?? sources.product.description,
        count: cell.count,
        variant: cell.variant,
        context,
      };
    });
    return qualityCall(test, sources, blocks, sources.chunks ? 'document' : 'product');
  }
  // augment: new cases written from the test's own.
  if (test.type === 'SCENARIOS')
    return scenarioCall(test, sources, test.strategies[0] ?? null, step.count, index, true);
  if (test.type === 'RED_TEAMING') {
    const originals = sources.seeds.filter((c) => c.strategy === null || c.strategy === 'original');
    const window = seedWindow(originals.length ? originals : sources.seeds, index);
    const variant = window[0]?.variant ?? test.variants[0] ?? 'misuse';
    const slots = Array.from({ length: step.count }, () => ({ variant, strategies: ['original'] }));
    return attackCall(
      test,
      sources,
      variant,
      slots,
      window.filter((c) => c.variant === window[0]?.variant).map(seedText),
    );
  }
  const window = seedWindow(sources.seeds, index, Math.min(SEEDS_PER_STEP, step.count));
  const counts = spreadEvenly(step.count, window.length);
  const blocks = window.map((c, i) => ({
    source: i + 1,
    text: seedText(c),
    count: counts[i]!,
    variant: c.variant,
    context: c.context,
  }));
  return qualityCall(
    test,
    sources,
    blocks.filter((b) => b.count > 0),
    'augment',
  );
}

function stepsOf(test: GeneratingTest, gen: GenerationState, sources: Sources): GenerationStep[] {
  return planSteps({
    type: test.type,
    action: gen.action,
    target: gen.target,
    variants: test.variants,
    strategies: test.strategies,
    ...(sources.chunks ? { chunkLengths: sources.chunks.map((c) => c.length) } : {}),
    offset: gen.offset,
  });
}

/** Performs step `job.step` of action `job.seq`, or nothing when it is stale, taken or cancelled. */
export async function processGenerationStep(
  job: GenerationJob,
  options: { remainingMs?: () => number } = {},
): Promise<void> {
  const test = await getGeneratingTest(job.organizationId, job.testId);
  const gen = test?._gen;
  if (!test || !gen || test.deletedAt || gen.seq !== job.seq) return;
  const status = ACTIVE_STATUS[gen.action];
  if (test.status !== status) return; // cancelled or finished: nothing more to do
  const org = test.organizationId;
  const at = { seq: gen.seq, step: gen.step, status };
  const fail = (error: string) => finishGeneration(org, test.id, [status], { status: 'FAILED', error }, gen.seq);
  if (job.step < gen.step) {
    // A redelivery of a step already done: its successor may not have been queued.
    if ((gen.queued ?? 0) < gen.step) await queueStep(job, gen.step);
    return;
  }
  if (job.step > gen.step) return;
  if (!llmConfig().baseUrl) {
    await fail('no generator model is configured');
    return;
  }

  let sources: Sources;
  try {
    sources = await loadSources(test, gen);
  } catch (error) {
    if (error instanceof DocumentError || error instanceof GenerationFailure) {
      await fail(error.message);
      return;
    }
    throw error;
  }
  const steps = stepsOf(test, gen, sources);
  const step = steps[gen.step];
  if (!step) {
    await finishGeneration(org, test.id, [status], { status: 'SUCCESS' }, gen.seq);
    return;
  }

  const { model, creditsModelName } = await resolveModel(generatorModelName(test));
  const amount = await creditsPerCall(creditsModelName);
  const now = clock.now();
  // A step that already holds a reservation (its worker stopped before the end) keeps it.
  const needsReservation = amount > 0 && gen.charge?.step !== gen.step;
  const cycle = cycleOf(now);
  const limit = needsReservation ? ((await getOrganization(org))?.monthlyCredits ?? null) : null;
  const claimed = await claimStep(
    org,
    test.id,
    at,
    now.getTime(),
    STEP_LEASE_MS,
    needsReservation ? { cycle, amount, limit } : undefined,
  );
  if (claimed === 'busy') return;
  if (claimed === 'no-credits') {
    await fail('no credits available: the organization has used its monthly credits');
    return;
  }
  const charge = needsReservation
    ? { step: gen.step, cycle, amount }
    : gen.charge?.step === gen.step
      ? gen.charge
      : undefined;

  try {
    const call = callFor(test, gen, sources, step, gen.step);
    const result = await callLlm<never>({
      purpose: 'generator',
      organizationId: org,
      model,
      creditsModelName,
      messages: call.messages,
      schemaName: call.schemaName,
      schema: call.schema,
      refine: call.refine,
      charge: false,
      temperature: 0.7,
      ...(options.remainingMs ? { remainingMs: options.remainingMs() } : {}),
    });
    if (!result.ok) {
      if (charge) await closeCharge(org, test.id, gen.seq, charge, 'release');
      await fail(result.error);
      return;
    }
    const written = clock.now().toISOString();
    let base = test.testCaseCount;
    const cases = call
      .cases(result.value)
      .map((fields, i) => ({ ...blankCase(test, gen.action === 'augment', written), ...fields, index: base + i + 1 }));
    const offloaded = await offloadCases(cases);
    const items = offloaded.flatMap(([r, pointer]) => [r.item, pointer]);
    let committed = await commitStep(org, test.id, at, items, cases.length, charge, base);
    // Cases added by hand while the generator answered took the next indexes: number after them.
    for (let attempt = 1; typeof committed === 'object'; attempt++) {
      if (attempt > MAX_RENUMBERS) {
        await discardObjects(offloaded.flatMap(([r]) => r.written));
        throw new Error(`test cases kept being added to test ${test.id} while generated cases were written`);
      }
      base = committed.moved;
      offloaded.forEach(([r], i) => {
        Object.assign(r.item, { index: base + i + 1, ...keys.byTest(test.id, base + i + 1, r.item.id as string) });
      });
      committed = await commitStep(org, test.id, at, items, cases.length, charge, base);
    }
    if (!committed) {
      // Cancelled while the generator answered: the answer was valid, so its call is charged.
      await discardObjects(offloaded.flatMap(([r]) => r.written));
      const settled = charge && (await closeCharge(org, test.id, gen.seq, charge, 'settle'));
      if (settled) countMetric(METRIC.CreditsCharged, charge.amount);
      return;
    }
    // The commit settled the step's reservation with its cases.
    if (charge) countMetric(METRIC.CreditsCharged, charge.amount);
  } catch (error) {
    await releaseLease(org, test.id, gen.seq, gen.step).catch(() => undefined);
    throw error;
  }
  if (gen.step + 1 >= steps.length) await finishGeneration(org, test.id, [status], { status: 'SUCCESS' }, gen.seq);
  else await queueStep(job, gen.step + 1);
}

/** Times a step renumbers its cases because cases were added by hand meanwhile, before its job is retried. */
const MAX_RENUMBERS = 5;

async function queueStep(job: GenerationJob, step: number): Promise<void> {
  await enqueueGenerationJobs([{ ...job, step }]);
  await markQueued(job.organizationId, job.testId, job.seq, step);
}

/** One SQS batch of generation steps, in parallel; a failed record is redelivered (DLQ after 3 receives). */
export function processGenerationBatch(
  event: SQSEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SQSBatchResponse> {
  return processBatch(event, context, {
    label: 'generation',
    parse: parseGenerationJob,
    describe: (job) => ({ organizationId: job.organizationId, testId: job.testId, seq: job.seq, step: job.step }),
    run: (job, remainingMs) => processGenerationStep(job, remainingMs ? { remainingMs } : {}),
    giveUp: abandonGenerationStep,
  });
}

/**
 * A step that failed on every receive (storage or queue trouble, not an LLM answer: those fail the
 * test themselves): the test becomes FAILED, keeping the cases written so far, instead of staying
 * in its working status forever. Nothing when the action is no longer the test's current one.
 */
export async function abandonGenerationStep(job: GenerationJob, error: Error): Promise<void> {
  const test = await getGeneratingTest(job.organizationId, job.testId);
  const gen = test?._gen;
  if (!test || !gen || gen.seq !== job.seq) return;
  const message = `generation stopped: ${failedEveryReceive(`step ${job.step + 1}`, error)}`;
  await finishGeneration(
    test.organizationId,
    test.id,
    [ACTIVE_STATUS[gen.action]],
    { status: 'FAILED', error: message },
    gen.seq,
  );
}
