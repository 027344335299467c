/** A check's own rules that need no scorer: its target and its regular expression. */
import type { Check } from '../../schemas/metrics.js';
import type { CheckTarget } from './params.js';

export const targetOf = (check: Check): CheckTarget => check.target ?? 'actual_output';

/**
 * The pattern of a regex check, with its flags: `u` (code points, strict syntax) when the pattern
 * compiles with it, else without it, as ECMAScript's Annex B reads patterns such as `\d{3}\-\d{4}`
 * or `\"` that users copy from other engines; `i` when caseSensitive is false. Throws the `u`
 * reading's SyntaxError when neither compiles.
 */
export function checkPattern(check: Pick<Check, 'value' | 'caseSensitive'>): RegExp {
  const i = check.caseSensitive === false ? 'i' : '';
  try {
    return new RegExp(check.value ?? '', `${i}u`);
  } catch (strict) {
    try {
      return new RegExp(check.value ?? '', i);
    } catch {
      throw strict;
    }
  }
}
