import { describe, expect, it } from 'vitest';
import { STALL_REDELIVERIES, STALLED_ERROR, watchDecision } from '../../shared/domain/runs/watchdog.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 28, 8, 0) + minutes * 60_000);
const STALL = 15 * 60_000;

describe('the stall watchdog’s decision', () => {
  it.each([
    ['first look', undefined, 5, 0, 'first', { finished: 5, movedAt: at(0).toISOString(), redeliveries: 0 }],
    [
      'moved',
      { finished: 3, movedAt: at(0).toISOString(), redeliveries: 2 },
      5,
      30,
      'moved',
      { finished: 5, movedAt: at(30).toISOString(), redeliveries: 2 },
    ],
    ['still within the wait', { finished: 5, movedAt: at(0).toISOString(), redeliveries: 0 }, 5, 14, 'wait', undefined],
    [
      'stalled: re-deliver',
      { finished: 5, movedAt: at(0).toISOString(), redeliveries: 0 },
      5,
      15,
      'redeliver',
      { finished: 5, movedAt: at(15).toISOString(), redeliveries: 1 },
    ],
    [
      'stalled after 2: the third',
      { finished: 5, movedAt: at(0).toISOString(), redeliveries: 2 },
      5,
      20,
      'redeliver',
      { finished: 5, movedAt: at(20).toISOString(), redeliveries: 3 },
    ],
    [
      'stalled after 3: fail',
      { finished: 5, movedAt: at(0).toISOString(), redeliveries: 3 },
      5,
      16,
      'fail',
      { finished: 5, movedAt: at(16).toISOString(), redeliveries: 3 },
    ],
  ] as const)('%s', (_, seen, finished, minutes, action, next) => {
    const decision = watchDecision(seen, finished, at(minutes), STALL);
    expect(decision.action).toBe(action);
    expect(decision.next).toEqual(next);
  });

  it('re-delivers 3 times, and says so in the error', () => {
    expect(STALL_REDELIVERIES).toBe(3);
    expect(STALLED_ERROR).toBe('stalled: no progress after 3 re-deliveries');
  });
});
