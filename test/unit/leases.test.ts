import { afterEach, describe, expect, it } from 'vitest';
import { leaseFreeBelow, voidLeasesTakenBefore } from '../../shared/db/leases.js';

describe('leases a stopped runtime left', () => {
  afterEach(() => voidLeasesTakenBefore(0));

  it('a lease holds until it ends (AWS, and a runtime on a shared table)', () => {
    // A stored lease (its end) is free when below the bound: one that ended, not one that runs on.
    expect(leaseFreeBelow(10_000, 6_000)).toBe(10_000);
  });

  it('once the runtime declared the leases before its start void, one taken before is free, one taken since holds', () => {
    const startedAt = 100_000;
    voidLeasesTakenBefore(startedAt);
    const now = startedAt + 1_000;
    const bound = leaseFreeBelow(now, 6_000);
    // Taken 1 s before the start by a runtime that is gone: it would run 4 s more, it is free.
    expect(startedAt - 1_000 + 6_000 < bound).toBe(true);
    // Taken 1 s after the start, by this runtime: it holds.
    expect(startedAt + 1_000 + 6_000 < bound).toBe(false);
    // Long after, the bound is the clock again.
    expect(leaseFreeBelow(startedAt + 60_000, 6_000)).toBe(startedAt + 60_000);
  });
});
