import { vi } from 'vitest';
import { clock } from '../../shared/domain/common/clock.js';

export interface FakeClock {
  /** Every `clock.sleep` the code asked for (retry waits, back-offs, rate-limit waits), in ms, in order. */
  waits: number[];
  /** Every `clock.timeout` the code armed (an attempt's timeout), in ms, in order, fired or not. */
  timeouts: number[];
  /** Epoch ms the clock reads now. */
  now(): number;
  /** Moves the clock on by `ms` (time that passed outside the code, e.g. a queue's delay). */
  advance(ms: number): void;
}

export interface FakeClockOptions {
  /** Epoch ms the clock starts at (default: the real time). */
  start?: number;
  /**
   * When timeout number `index` (0-based, in the order armed) of `ms` expires: when the promise
   * resolves, or never (until cleared) when undefined is returned. Default: never, so an
   * attempt ends only with its answer or its failure.
   */
  expire?: (ms: number, index: number) => Promise<unknown> | undefined;
  /**
   * When wait number `index` of `ms` ends: when the promise resolves, or at once when undefined
   * is returned (the default). An aborted signal ends it first, with an AbortError.
   */
  hold?: (ms: number, index: number) => Promise<unknown> | undefined;
}

/**
 * Replaces the service clock (shared/domain/common/clock.ts) for one test, so it races no real
 * time: `now` stands still except for the time the code waited; a `sleep` is recorded and skips
 * its time at once (moving `now` on by it); a `timeout` is recorded and expires only when the test
 * says (moving `now` on by its length). Restored by `vi.restoreAllMocks()`.
 */
export function fakeClock(options: FakeClockOptions = {}): FakeClock {
  const start = options.start ?? Date.now();
  let passed = 0;
  const waits: number[] = [];
  const timeouts: number[] = [];
  vi.spyOn(clock, 'now').mockImplementation(() => new Date(start + passed));
  vi.spyOn(clock, 'sleep').mockImplementation(async (ms: number, signal?: AbortSignal) => {
    const index = waits.push(ms) - 1;
    await untilOrAborted(options.hold?.(ms, index) ?? Promise.resolve(), signal);
    passed += Math.max(0, ms);
  });
  vi.spyOn(clock, 'timeout').mockImplementation((ms: number) => {
    const index = timeouts.push(ms) - 1;
    const timeout = new AbortController();
    let cleared = false;
    options.expire?.(ms, index)?.then(() => {
      if (cleared) return;
      passed += ms;
      timeout.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError'));
    });
    return {
      signal: timeout.signal,
      clear: () => {
        cleared = true;
      },
    };
  });
  return {
    waits,
    timeouts,
    now: () => start + passed,
    advance: (ms) => {
      passed += ms;
    },
  };
}

function untilOrAborted(until: Promise<unknown>, signal: AbortSignal | undefined): Promise<unknown> {
  if (!signal) return until;
  const aborted = () => Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    until.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A point in a test that a fake timeout or wait can be held until: `next()` resolves at the
 * following `open()` (a request the agent holds arrived, say).
 */
export function gate(): { next: () => Promise<void>; open: () => void } {
  const waiting: (() => void)[] = [];
  return {
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
    open: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}
