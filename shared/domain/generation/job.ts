import {
  type GeneratingTest,
  type GenerationState,
  claimStep,
  closeCharge,
  commitStep,
  getGeneratingTest,
  markQueued,
  releaseLease,
} from '../../db/generation.js';
import { renumberCaseItem } from '../../db/tests.js';
import { discardObjects } from '../../db/offload.js';
import { getOrganization } from '../../db/organizations.js';
import { callLlm, creditsPerCall, llmConfig } from '../../llm/client.js';
import { generatorModelName, resolveModel } from '../../llm/models.js';
import { METRIC, countMetric } from '../../observability/metrics.js';
import { failedEveryReceive, processBatch } from '../../queue/batch.js';
import { type GenerationJob, enqueueGenerationJobs, parseGenerationJob } from '../../queue/generation-queue.js';
import { cycleOf } from '../accounts/organization.js';
import { clock } from '../common/clock.js';
import { offloadCases } from '../tests/tests.js';
import { blankCase, callFor } from './calls.js';
import { DocumentError } from './documents.js';
import { ACTIVE_STATUS, finishGeneration } from './lifecycle.js';
import { type GenerationStep, planSteps } from './plan.js';
import { GenerationFailure, type Sources, loadSources } from './sources.js';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * The generation job: one step of one action per message, at most one call of
 * the generator, then the next step on the queue. Idempotent under redelivery: a step is taken
 * with a lease, its credits are reserved with the lease and settled in the same transaction that
 * writes its cases and moves the cursor, so a step never writes cases or charges credits twice.
 * A cancelled test is left alone at its next step.
 */

/** How long a worker holds a step: longer than the generator function's timeout. */
export const STEP_LEASE_MS = 6 * 60_000;
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
      for (const [i, [r]] of offloaded.entries()) renumberCaseItem(r.item, test.id, base + i + 1);
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
