import type { TestType } from '../evaluation/params.js';
import { RED_TEAMING_VARIANTS } from '../evaluation/params.js';
import { attackSlots, spreadEvenly, spreadOverCells, type AttackSlot } from './spread.js';

/**
 * The steps of one generation action: each step is one call of the generator and
 * writes at most `MAX_CASES_PER_STEP` cases in one transaction. Pure: a step is recomputed from
 * the test and the action's cursor, so nothing but the cursor is stored.
 */

/** A transaction holds 100 items: two per case, plus the test and the credit settlement. */
export const MAX_CASES_PER_STEP = 45;
export const QUALITY_CASES_PER_STEP = 20;
export const SCENARIOS_PER_STEP = 10;
export const AUGMENTED_PER_STEP = 10;
/** Characters of source text (chunks) sent in one QUALITY step. */
export const QUALITY_CHARS_PER_STEP = 12_000;

export type GenerationAction = 'generate' | 'extend' | 'augment';

export interface QualityCell {
  /** The chunk's position in the document's chunk list (null: the product description). */
  chunk: number;
  variant: string | null;
  count: number;
}

export type GenerationStep =
  | { kind: 'attacks'; variant: string; slots: AttackSlot[] }
  | { kind: 'quality'; cells: QualityCell[] }
  | { kind: 'scenarios'; strategy: string | null; count: number }
  | { kind: 'augment'; count: number };

export interface PlanInput {
  type: TestType;
  action: GenerationAction;
  /** Cases this action writes at most. */
  target: number;
  variants: readonly string[];
  strategies: readonly string[];
  /** QUALITY: lengths of the source's chunks, in order. */
  chunkLengths?: readonly number[];
  /** Where in the chunk list this action starts (extend goes on where earlier cases stopped). */
  offset?: number;
}

/** The threats a RED_TEAMING test without variants is generated for (every one but custom). */
export const DEFAULT_THREATS: readonly string[] = RED_TEAMING_VARIANTS.filter((v) => v !== 'custom');

/** `original` first (every other strategy transforms it), then the rest in the order given. */
export function orderedStrategies(strategies: readonly string[]): string[] {
  return ['original', ...strategies.filter((s) => s !== 'original')];
}

function groups<T>(items: T[], fits: (group: T[], next: T) => boolean): T[][] {
  const out: T[][] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last && fits(last, item)) last.push(item);
    else out.push([item]);
  }
  return out;
}

export function planSteps(input: PlanInput): GenerationStep[] {
  const target = Math.max(0, input.target);
  if (input.action === 'augment')
    return spreadEvenly(target, Math.ceil(target / AUGMENTED_PER_STEP)).map((count) => ({ kind: 'augment', count }));
  if (input.type === 'RED_TEAMING') {
    const strategies = orderedStrategies(input.strategies);
    const variants = input.variants.length ? input.variants : DEFAULT_THREATS;
    const perStep = Math.max(1, Math.min(10, Math.floor(MAX_CASES_PER_STEP / strategies.length)));
    const slots = attackSlots(target, variants, strategies);
    return groups(slots, (g, s) => g.length < perStep && g[0]!.variant === s.variant).map((g) => ({
      kind: 'attacks',
      variant: g[0]!.variant,
      slots: g,
    }));
  }
  if (input.type === 'SCENARIOS') {
    const strategies = input.strategies.length ? input.strategies : [null];
    const counts = spreadEvenly(target, strategies.length);
    return strategies.flatMap((strategy, i) =>
      spreadEvenly(counts[i]!, Math.ceil(counts[i]! / SCENARIOS_PER_STEP)).map((count) => ({
        kind: 'scenarios' as const,
        strategy,
        count,
      })),
    );
  }
  const lengths = input.chunkLengths?.length ? input.chunkLengths : [0];
  const start = (input.offset ?? 0) % lengths.length;
  const order = lengths.map((_, i) => (start + i) % lengths.length);
  const variants = input.variants.length ? input.variants : [null];
  // Chunk-major: the cases go round the chunks first, so a small target still covers the document.
  const cells = spreadOverCells(
    target,
    order,
    variants.map((v) => v ?? ''),
  )
    .filter((c) => c.count > 0)
    .map((c) => ({ chunk: c.variant, variant: c.strategy === '' ? null : c.strategy, count: c.count }))
    .sort((a, b) => order.indexOf(a.chunk) - order.indexOf(b.chunk));
  const chars = (g: QualityCell[]) => [...new Set(g.map((c) => c.chunk))].reduce((n, i) => n + (lengths[i] ?? 0), 0);
  const split = cells.flatMap((c) =>
    spreadEvenly(c.count, Math.ceil(c.count / QUALITY_CASES_PER_STEP)).map((count) => ({ ...c, count })),
  );
  return groups(split, (g, c) => {
    const cases = g.reduce((n, x) => n + x.count, 0) + c.count;
    const extra = g.some((x) => x.chunk === c.chunk) ? 0 : (lengths[c.chunk] ?? 0);
    return cases <= QUALITY_CASES_PER_STEP && chars(g) + extra <= QUALITY_CHARS_PER_STEP;
  }).map((cells) => ({ kind: 'quality', cells }));
}

/** The cases a step writes when the generator answers in full. */
export function stepCaseCount(step: GenerationStep): number {
  switch (step.kind) {
    case 'attacks':
      return step.slots.reduce((n, s) => n + s.strategies.length, 0);
    case 'quality':
      return step.cells.reduce((n, c) => n + c.count, 0);
    default:
      return step.count;
  }
}
