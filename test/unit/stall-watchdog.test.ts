import { afterEach, describe, expect, it } from 'vitest';
import {
  acts,
  STALL_REDELIVERIES,
  STALLED_ERROR,
  stallMinutes,
  watchDecision,
} from '../../shared/domain/common/stall.js';
import type { Watch } from '../../shared/db/stall-watch.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 28, 8, 0) + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const STALL = 15 * 60_000;
const seenAt = (minutes: number, redeliveries: number, progress = '5/3/2'): Watch => ({
  progress,
  movedAt: iso(minutes),
  redeliveries,
});

describe('the stall watchdog’s decision', () => {
  it.each([
    [
      'first look: the wait starts',
      undefined,
      '5/3/2',
      0,
      'first',
      { progress: '5/3/2', movedAt: iso(0), redeliveries: 0 },
    ],
    [
      'the counters moved: the wait starts again, the re-deliveries already sent stay counted',
      seenAt(0, 2, '5/3/1'),
      '5/3/2',
      30,
      'moved',
      { progress: '5/3/2', movedAt: iso(30), redeliveries: 2 },
    ],
    ['not moved, for less than STALL_MINUTES', seenAt(0, 0), '5/3/2', 14, 'wait', undefined],
    [
      'not moved for STALL_MINUTES: re-deliver',
      seenAt(0, 0),
      '5/3/2',
      15,
      'redeliver',
      { progress: '5/3/2', movedAt: iso(15), redeliveries: 1 },
    ],
    [
      'stalled after 2: the third',
      seenAt(0, 2),
      '5/3/2',
      20,
      'redeliver',
      { progress: '5/3/2', movedAt: iso(20), redeliveries: 3 },
    ],
    [
      'stalled after 3: fail',
      seenAt(0, 3),
      '5/3/2',
      16,
      'fail',
      { progress: '5/3/2', movedAt: iso(16), redeliveries: 3 },
    ],
    ['a re-delivery restarts the wait', seenAt(15, 1), '5/3/2', 29, 'wait', undefined],
  ] as const)('%s', (_, seen, progress, minutes, action, next) => {
    const decision = watchDecision(seen, progress, at(minutes), STALL);
    expect(decision.action).toBe(action);
    expect(decision.next).toEqual(next);
  });

  describe('a turn recorded without the counters moving (a long conversation)', () => {
    it('counts as progress when it is newer than the last movement: the wait restarts from it', () => {
      expect(watchDecision(seenAt(0, 1), '5/3/2', at(16), STALL, iso(10))).toEqual({
        action: 'moved',
        next: { progress: '5/3/2', movedAt: iso(10), redeliveries: 1 },
      });
      // Seen again later: from that turn, not yet 15 minutes.
      expect(watchDecision(seenAt(10, 1), '5/3/2', at(24), STALL, iso(10)).action).toBe('wait');
    });

    it('does not when it is older than the last movement, or itself STALL_MINUTES old', () => {
      expect(watchDecision(seenAt(5, 0), '5/3/2', at(21), STALL, iso(2)).action).toBe('redeliver');
      expect(watchDecision(seenAt(0, 0), '5/3/2', at(40), STALL, iso(20)).action).toBe('redeliver');
      expect(watchDecision(seenAt(0, 3), '5/3/2', at(40), STALL, iso(20)).action).toBe('fail');
    });

    it('a turn stamped ahead of the scanner’s clock counts as now', () => {
      expect(watchDecision(seenAt(0, 0), '5/3/2', at(16), STALL, iso(17))).toEqual({
        action: 'moved',
        next: { progress: '5/3/2', movedAt: iso(16), redeliveries: 0 },
      });
    });

    it('the counters moving wins whatever the turns say', () => {
      expect(watchDecision(seenAt(0, 0), '6/3/2', at(40), STALL, iso(1)).action).toBe('moved');
    });
  });

  it('acts only to re-deliver or fail', () => {
    expect((['first', 'moved', 'wait', 'redeliver', 'fail'] as const).filter(acts)).toEqual(['redeliver', 'fail']);
  });

  it('re-delivers 3 times, and says so in the error', () => {
    expect(STALL_REDELIVERIES).toBe(3);
    expect(STALLED_ERROR).toBe('stalled: no progress after 3 re-deliveries');
  });
});

describe('STALL_MINUTES', () => {
  const before = process.env.STALL_MINUTES;
  afterEach(() => {
    if (before === undefined) delete process.env.STALL_MINUTES;
    else process.env.STALL_MINUTES = before;
  });

  it('defaults to 15; a value that is not a positive number is the default', () => {
    delete process.env.STALL_MINUTES;
    expect(stallMinutes()).toBe(15);
    process.env.STALL_MINUTES = '2.5';
    expect(stallMinutes()).toBe(2.5);
    for (const bad of ['0', '-3', 'soon', '']) {
      process.env.STALL_MINUTES = bad;
      expect(stallMinutes(), bad).toBe(15);
    }
  });
});
