/**
 * How many cases go where: as evenly as possible, never more than asked. Pure.
 */

/** `total` split over `parts` as evenly as possible: the first `total mod parts` get one more. */
export function spreadEvenly(total: number, parts: number): number[] {
  if (parts <= 0) return [];
  const base = Math.floor(Math.max(0, total) / parts);
  const extra = Math.max(0, total) - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}

export interface Cell<V> {
  variant: V;
  strategy: string;
  count: number;
}

/**
 * `total` cases over variants × strategies. The remainder goes strategy by strategy (the first
 * strategy of every variant first), so an earlier strategy never has fewer cases than a later one
 * of the same variant: with `original` first, every transformed case has its original.
 */
export function spreadOverCells<V>(total: number, variants: readonly V[], strategies: readonly string[]): Cell<V>[] {
  const counts = spreadEvenly(total, variants.length * strategies.length);
  const cells: Cell<V>[] = [];
  strategies.forEach((strategy, s) => {
    variants.forEach((variant, v) => {
      cells.push({ variant, strategy, count: counts[s * variants.length + v]! });
    });
  });
  return cells;
}

/** One base attack to write and the strategies it yields a case for (maxTestCases spread over variants × strategies). */
export interface AttackSlot {
  variant: string;
  strategies: string[];
}

/**
 * The base attacks of a RED_TEAMING generation: per variant, as many attacks as its largest cell,
 * attack j yielding a case for every strategy whose cell holds more than j cases. The number of
 * cases is exactly the spread's total.
 */
export function attackSlots(total: number, variants: readonly string[], strategies: readonly string[]): AttackSlot[] {
  const cells = spreadOverCells(total, variants, strategies);
  const slots: AttackSlot[] = [];
  for (const variant of variants) {
    const mine = cells.filter((c) => c.variant === variant);
    const attacks = Math.max(0, ...mine.map((c) => c.count));
    for (let j = 0; j < attacks; j++)
      slots.push({ variant, strategies: mine.filter((c) => c.count > j).map((c) => c.strategy) });
  }
  return slots;
}
