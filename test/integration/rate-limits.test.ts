import { describe, expect, it } from 'vitest';
import { takeRateSlot } from '../../shared/db/rate-limits.js';

let n = 0;
const connectionId = () => `econ_rate_test_${Date.now()}_${++n}`;

describe('rate-limit tokens (GCRA without burst)', () => {
  it('grants the first call, refuses the next until one interval has passed, and says when', async () => {
    const id = connectionId();
    const t0 = 1_800_000_000_000;
    expect(await takeRateSlot(id, 60, t0)).toEqual({ ok: true });
    expect(await takeRateSlot(id, 60, t0 + 10)).toEqual({ ok: false, retryAt: t0 + 1000 });
    expect(await takeRateSlot(id, 60, t0 + 999)).toEqual({ ok: false, retryAt: t0 + 1000 });
    expect(await takeRateSlot(id, 60, t0 + 1000)).toEqual({ ok: true });
    // No burst: idle time does not bank slots.
    expect(await takeRateSlot(id, 60, t0 + 60_000)).toEqual({ ok: true });
    expect(await takeRateSlot(id, 60, t0 + 60_001)).toEqual({ ok: false, retryAt: t0 + 61_000 });
  });

  it('10 concurrent workers on a 120/min connection never start two calls closer than 500 ms', async () => {
    const id = connectionId();
    const rateLimit = 120;
    const interval = 60_000 / rateLimit;
    const t0 = 1_800_000_000_000;
    const span = 3000;
    const granted: number[] = [];
    let refused = 0;
    // Each worker keeps its own time: it wakes at the slot it was told (as a requeued job would),
    // a few ms apart from the others; the conditional updates still race in DynamoDB Local.
    const worker = async (w: number) => {
      let now = t0 + w;
      while (now < t0 + span) {
        const slot = await takeRateSlot(id, rateLimit, now);
        if (slot.ok) {
          granted.push(now);
          now += 1 + Math.floor(Math.random() * 5);
        } else {
          refused++;
          expect(slot.retryAt).toBeGreaterThan(now);
          now = slot.retryAt + Math.floor(Math.random() * 5);
        }
      }
    };
    await Promise.all(Array.from({ length: 10 }, (_, w) => worker(w)));
    granted.sort((a, b) => a - b);
    const gaps = granted.slice(1).map((t, i) => t - granted[i]!);
    expect(granted.length).toBeGreaterThanOrEqual(5);
    expect(granted.length).toBeLessThanOrEqual(Math.floor(span / interval) + 1);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(interval);
    expect(refused).toBeGreaterThan(0);
    // So no 60-second window can hold more than the limit.
    for (let i = 0; i < granted.length; i++) {
      expect(granted.filter((t) => t >= granted[i]! && t < granted[i]! + 60_000).length).toBeLessThanOrEqual(rateLimit);
    }
  });

  it('an unlimited connection always gets a slot without touching the table', async () => {
    expect(await takeRateSlot(connectionId(), 0)).toEqual({ ok: true });
  });
});
