import { MAX_BARGE_IN_MS, MIN_BARGE_IN_MS } from '../../schemas/runs.js';

/**
 * Which barge-in a PHONE session plays: the run's `bargeInAfterMs`, unless its test case's
 * `context` says otherwise. A case's context is free text (what its evaluations read); when it is
 * a JSON object with a `bargeInAfterMs` key, that key wins: an integer from 100 to 10,000, or null
 * for none. Any other context leaves the run's. A key with another value is not refused when the
 * case is written (cases come from CSV uploads, generation and the API, and context is free
 * there): the session fails at its first step, naming the case and the rule.
 */

/** The barge-in of a session (null: none), or why its case's value cannot be used. */
export type BargeInSetting = { afterMs: number | null } | { error: string };

const isInRange = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= MIN_BARGE_IN_MS && value <= MAX_BARGE_IN_MS;

/** The case's own `bargeInAfterMs`, when its context is a JSON object that has the key. */
function caseValue(context: string | null | undefined): { value: unknown } | undefined {
  const text = context?.trim();
  if (!text?.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return Object.hasOwn(parsed, 'bargeInAfterMs')
    ? { value: (parsed as Record<string, unknown>).bargeInAfterMs }
    : undefined;
}

/** The session's barge-in: its case's value (checked) when it has one, else the run's. */
export function bargeInSetting(
  runAfterMs: number | undefined,
  testCase: { id: string; context: string | null } | undefined,
): BargeInSetting {
  const own = caseValue(testCase?.context);
  if (!own) return { afterMs: runAfterMs ?? null };
  if (own.value === null || isInRange(own.value)) return { afterMs: own.value };
  return {
    error: `context.bargeInAfterMs of test case ${testCase!.id} must be an integer from ${MIN_BARGE_IN_MS} to ${MAX_BARGE_IN_MS.toLocaleString('en-US')}, or null for no barge-in; it is ${String(JSON.stringify(own.value)).slice(0, 40)}`,
  };
}
