import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passFigures, type RepetitionResult } from '../../shared/domain/runs/pass-rates.js';

const ok = (metricId: string, score: number) => ({ metricId, status: 'SUCCESS', score });
const failed = (metricId: string) => ({ metricId, status: 'FAILED', score: null });
const skipped = (metricId: string) => ({ metricId, status: 'SKIPPED', score: null });

describe('pass figures', () => {
  it('by hand: three cases, two repetitions, threshold 0.5', () => {
    const sessions: RepetitionResult[] = [
      // case A passes in both repetitions
      { testCaseId: 'A', repetition: 1, evaluations: [ok('m', 0.9)] },
      { testCaseId: 'A', repetition: 2, evaluations: [ok('m', 0.5)] },
      // case B: repetition 1 has one turn below the threshold (fails), repetition 2 passes
      { testCaseId: 'B', repetition: 1, evaluations: [ok('m', 0.8), ok('m', 0.2)] },
      { testCaseId: 'B', repetition: 2, evaluations: [ok('m', 0.7), failed('m')] },
      // case C: never passes (repetition 2 has no SUCCESS evaluation, which is not a pass)
      { testCaseId: 'C', repetition: 1, evaluations: [ok('m', 0.1)] },
      { testCaseId: 'C', repetition: 2, evaluations: [failed('m')] },
      // case D: nothing scored, so it does not count
      { testCaseId: 'D', repetition: 1, evaluations: [skipped('m')] },
      { testCaseId: 'D', repetition: 2, evaluations: [] },
    ];
    expect(passFigures(sessions, ['m', 'other'], 0.5, 2)).toEqual({
      // SUCCESS evaluations: 0.9, 0.5, 0.8, 0.2, 0.7, 0.1 → four at or above 0.5
      m: { passRate: 4 / 6, passAllK: 1 / 3, passAnyK: 2 / 3 },
      other: { passRate: null, passAllK: null, passAnyK: null },
    });
  });

  it('a case missing a repetition (no session) does not pass every repetition', () => {
    const sessions: RepetitionResult[] = [{ testCaseId: 'A', repetition: 1, evaluations: [ok('m', 1)] }];
    expect(passFigures(sessions, ['m'], 0.5, 3).m).toEqual({ passRate: 1, passAllK: 0, passAnyK: 1 });
    expect(passFigures(sessions, ['m'], 1, 1).m).toEqual({ passRate: 1, passAllK: 1, passAnyK: 1 });
  });

  it('with one repetition, pass^1 = pass@1 = the share of cases passing (property)', () => {
    const evaluation = fc.record({
      metricId: fc.constantFrom('m', 'n'),
      status: fc.constantFrom('SUCCESS', 'FAILED', 'SKIPPED'),
      score: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    const session = fc.record({
      testCaseId: fc.constantFrom('A', 'B', 'C', 'D'),
      evaluations: fc.array(evaluation, { maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(session, { maxLength: 8 }), fc.double({ min: 0, max: 1, noNaN: true }), (raw, t) => {
        // one session per case, as a run with one repetition has
        const sessions = [...new Map(raw.map((s) => [s.testCaseId, { ...s, repetition: 1 }])).values()];
        const f = passFigures(sessions, ['m'], t, 1).m!;
        const scoredCases = sessions.filter((s) =>
          s.evaluations.some((e) => e.metricId === 'm' && e.status === 'SUCCESS'),
        );
        const passing = scoredCases.filter((s) =>
          s.evaluations.filter((e) => e.metricId === 'm' && e.status === 'SUCCESS').every((e) => e.score >= t),
        );
        const scores = sessions.flatMap((s) =>
          s.evaluations.filter((e) => e.metricId === 'm' && e.status === 'SUCCESS').map((e) => e.score),
        );
        expect(f.passAllK).toBe(scoredCases.length ? passing.length / scoredCases.length : null);
        expect(f.passAnyK).toBe(f.passAllK);
        expect(f.passRate).toBe(scores.length ? scores.filter((x) => x >= t).length / scores.length : null);
      }),
    );
  });
});
