import { describe, expect, it } from 'vitest';
import { bargeInSetting } from '../../shared/domain/voice/barge-in.js';

/** Which barge-in a PHONE session plays: its test case's context JSON wins over the run's value. */

const tc = (context: string | null) => ({ id: 'tc_1', context });

describe('barge-in setting', () => {
  it("takes the run's value when the case says nothing", () => {
    expect(bargeInSetting(800, undefined)).toEqual({ afterMs: 800 });
    expect(bargeInSetting(800, tc(null))).toEqual({ afterMs: 800 });
    expect(bargeInSetting(undefined, tc(null))).toEqual({ afterMs: null });
    // Free text, JSON that is not an object, an object without the key: the run's.
    for (const context of ['the refund policy says 30 days', '[1, 2]', '{"locale": "fr"}', '{not json', '  '])
      expect(bargeInSetting(800, tc(context))).toEqual({ afterMs: 800 });
  });

  it("a case's own value wins, null turning barge-in off", () => {
    expect(bargeInSetting(800, tc('{"bargeInAfterMs": 1500}'))).toEqual({ afterMs: 1500 });
    expect(bargeInSetting(undefined, tc(' {"bargeInAfterMs": 100, "note": "x"} '))).toEqual({ afterMs: 100 });
    expect(bargeInSetting(undefined, tc('{"bargeInAfterMs": 10000}'))).toEqual({ afterMs: 10_000 });
    expect(bargeInSetting(800, tc('{"bargeInAfterMs": null}'))).toEqual({ afterMs: null });
  });

  it('a value that breaks the rule is an error naming the case, the field and the bounds', () => {
    for (const [value, shown] of [
      ['99', '99'],
      ['10001', '10001'],
      ['250.5', '250.5'],
      ['"500"', '"500"'],
      ['true', 'true'],
    ] as const) {
      const setting = bargeInSetting(800, tc(`{"bargeInAfterMs": ${value}}`));
      expect(setting).toEqual({
        error: `context.bargeInAfterMs of test case tc_1 must be an integer from 100 to 10,000, or null for no barge-in; it is ${shown}`,
      });
    }
  });
});
