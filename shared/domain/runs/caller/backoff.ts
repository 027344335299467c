/** Retry delays of an endpoint connection. Pure. */

export type BackoffStrategy = 'FIXED' | 'EXPONENTIAL' | 'LINEAR';

/** retryMaxDelayMs is capped at 60 s server-side (contract). */
export const RETRY_DELAY_CAP_MS = 60_000;

/**
 * The delay before retry `k` (1-based): FIXED `initial`; LINEAR `initial × k`; EXPONENTIAL
 * `initial × 2^(k−1)`; capped at `maxDelayMs` (itself at most 60 s). No jitter.
 */
export function backoffDelay(strategy: BackoffStrategy, initialMs: number, k: number, maxDelayMs: number): number {
  const cap = Math.min(Math.max(0, maxDelayMs), RETRY_DELAY_CAP_MS);
  const initial = Math.max(0, initialMs);
  const raw = strategy === 'FIXED' ? initial : strategy === 'LINEAR' ? initial * k : initial * 2 ** (k - 1);
  return Math.min(raw, cap);
}

/**
 * `Retry-After` in milliseconds from `now`: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`); a past date is 0; anything else is undefined.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The wait before retry `k`: the strategy's delay, or a larger Retry-After, under the same cap. */
export function retryWait(
  policy: { strategy: BackoffStrategy; initialMs: number; maxDelayMs: number },
  k: number,
  retryAfterMs?: number,
): number {
  const base = backoffDelay(policy.strategy, policy.initialMs, k, policy.maxDelayMs);
  const cap = Math.min(Math.max(0, policy.maxDelayMs), RETRY_DELAY_CAP_MS);
  return retryAfterMs !== undefined && retryAfterMs > base ? Math.min(retryAfterMs, cap) : base;
}
