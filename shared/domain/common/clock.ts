import { setTimeout as timer } from 'node:timers/promises';

/**
 * The service's notion of time, in one place so tests can move it and skip its waits
 * (`vi.spyOn(clock, 'now')`, `vi.spyOn(clock, 'sleep')`, `vi.spyOn(clock, 'timeout')`): every
 * retry wait and back-off goes through `sleep`, every timeout an attempt runs under through
 * `timeout`, and the deadlines and durations they are measured against through `now`.
 */
export const clock = {
  now: (): Date => new Date(),
  /** Resolves after `ms`; rejects with an AbortError when `signal` aborts first. */
  sleep: (ms: number, signal?: AbortSignal): Promise<void> =>
    timer(Math.max(0, ms), undefined, signal ? { signal } : undefined),
  /**
   * A timeout: `signal` aborts with a TimeoutError (as `AbortSignal.timeout`'s does) after `ms`,
   * unless `clear` disarms it first. Call `clear` once the work is done.
   */
  timeout: (ms: number): { signal: AbortSignal; clear: () => void } => {
    const timeout = new AbortController();
    const disarm = new AbortController();
    clock.sleep(ms, disarm.signal).then(
      () => timeout.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError')),
      () => undefined,
    );
    return { signal: timeout.signal, clear: () => disarm.abort() };
  },
};
