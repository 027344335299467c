/**
 * The one call of the generator a step makes, by kind of test: its messages, its answer's schema
 * and checks, and how a valid answer becomes cases.
 */
import type { GeneratingTest, GenerationState } from '../../db/generation.js';
import type { LlmMessage } from '../../llm/client.js';
import { newId } from '../common/ids.js';
import type { GenerationStep } from './plan.js';
import {
  type QualityCases,
  type RedTeamAttacks,
  type ScenarioCases,
  type SourceBlock,
  qualityCasesSchema,
  redTeamAttacksSchema,
  refineAttacks,
  refineQuality,
  refineScenarios,
  scenarioCasesSchema,
  sourceKey,
} from './answers.js';
import { qualityMessages, redTeamMessages, scenarioMessages, seedText, writtenStrategies } from './prompts.js';
import { SEEDS_PER_STEP, type Sources, seedWindow } from './sources.js';
import { type AttackSlot, spreadEvenly } from './spread.js';
import { isDeterministic, transform } from './strategies.js';
import type { TestCase } from '../../schemas/tests.js';

/** A new case of the test with every field empty (the step fills its type's fields). */
export function blankCase(test: GeneratingTest, isAugmented: boolean, now: string): TestCase {
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
export function callFor(
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
