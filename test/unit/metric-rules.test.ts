import { describe, expect, it } from 'vitest';
import {
  checkModelSelectable,
  checkSourceRequirements,
  deriveDates,
  isMonitorable,
  whyNotMonitorable,
} from '../../shared/domain/metrics/metric-rules.js';
import { checkSpecification } from '../../shared/domain/metrics/specification-rules.js';
import type { Metric } from '../../shared/schemas/metrics.js';

const now = new Date('2026-06-15T12:00:00.000Z');

describe('derived metric dates', () => {
  it('takes the earliest of own date and model cutoff, and never reports a future legacyAt', () => {
    expect(deriveDates({ ownLegacyAt: null }, undefined, now)).toEqual({ legacyAt: null, disabledAt: null });
    expect(
      deriveDates(
        { ownLegacyAt: '2026-05-01T00:00:00.000Z' },
        { unselectableAt: '2026-04-01T00:00:00.000Z', disabledAt: null },
        now,
      ).legacyAt,
    ).toBe('2026-04-01T00:00:00.000Z');
    // a scheduled future cutoff reads null before the date …
    const model = { unselectableAt: '2026-07-01T00:00:00.000Z', disabledAt: '2026-08-01T00:00:00.000Z' };
    expect(deriveDates({}, model, now).legacyAt).toBeNull();
    // … and the date once it has passed
    expect(deriveDates({}, model, new Date('2026-07-01T00:00:00.000Z')).legacyAt).toBe('2026-07-01T00:00:00.000Z');
    expect(deriveDates({ ownDisabledAt: '2026-09-01T00:00:00.000Z' }, model, now).disabledAt).toBe(
      '2026-08-01T00:00:00.000Z',
    );
  });
});

describe('per-source requirements', () => {
  it.each([
    [{ source: 'FULL_PROMPT', judgePrompt: 'p', evaluatorModelName: 'm' }, /FULL_PROMPT is deprecated/],
    [{ source: 'DETERMINISTIC' }, 'check is required when source is DETERMINISTIC'],
    [
      { source: 'DETERMINISTIC', check: { type: 'is_json' }, judgePrompt: 'p' },
      'judgePrompt must not be set when source is DETERMINISTIC',
    ],
    [
      { source: 'DETERMINISTIC', check: { type: 'is_json' }, evaluatorModelName: 'm' },
      'evaluatorModelName must not be set when source is DETERMINISTIC',
    ],
    [
      { source: 'PARTIAL_PROMPT', judgePrompt: 'p', evaluatorModelName: 'm', check: { type: 'is_json' } },
      'check must not be set when source is PARTIAL_PROMPT; a check is a DETERMINISTIC metric',
    ],
    [{ source: 'PARTIAL_PROMPT', evaluatorModelName: 'm' }, 'judgePrompt is required when source is PARTIAL_PROMPT'],
    [{ source: 'GEVAL', judgePrompt: 'p' }, 'evaluatorModelName is required when source is GEVAL'],
    [{ source: 'DEEPEVAL' }, 'judgePrompt is required when source is DEEPEVAL'],
    [{ source: 'HUMAN_EVALUATION' }, 'judgePrompt is required when source is HUMAN_EVALUATION'],
    [
      { source: 'HUMAN_EVALUATION', judgePrompt: 'p', evaluatorModelName: 'm' },
      'evaluatorModelName must not be set when source is HUMAN_EVALUATION',
    ],
    [{ source: 'SELF_HOSTED', judgePrompt: 'p' }, 'judgePrompt must not be set when source is SELF_HOSTED'],
    [
      { source: 'SELF_HOSTED', evaluatorModelName: 'm' },
      'evaluatorModelName must not be set when source is SELF_HOSTED',
    ],
  ])('%j is refused', (input, message) => {
    expect(() => checkSourceRequirements(input as never)).toThrow(message);
  });

  it('accepts complete inputs', () => {
    expect(() =>
      checkSourceRequirements({ source: 'PARTIAL_PROMPT', judgePrompt: 'p', evaluatorModelName: 'm' }),
    ).not.toThrow();
    expect(() => checkSourceRequirements({ source: 'SELF_HOSTED' })).not.toThrow();
    expect(() => checkSourceRequirements({ source: 'HUMAN_EVALUATION', judgePrompt: 'p' })).not.toThrow();
    expect(() => checkSourceRequirements({ source: 'DETERMINISTIC', check: { type: 'is_json' } })).not.toThrow();
  });

  it('refuses unknown, unselectable and disabled models', () => {
    expect(() => checkModelSelectable(undefined, 'x', now)).toThrow(
      'evaluatorModelName x is not a known evaluator model',
    );
    const base = {
      name: 'm',
      provider: 'p',
      providerModelId: 'm',
      creditsPerEvaluation: 1,
      createdAt: '',
      updatedAt: '',
    };
    expect(() =>
      checkModelSelectable({ ...base, unselectableAt: '2026-01-01T00:00:00Z', disabledAt: null }, 'm', now),
    ).toThrow(/no longer be selected/);
    expect(() =>
      checkModelSelectable({ ...base, unselectableAt: null, disabledAt: '2026-01-01T00:00:00Z' }, 'm', now),
    ).toThrow(/disabled/);
    expect(() =>
      checkModelSelectable({ ...base, unselectableAt: '2027-01-01T00:00:00Z', disabledAt: null }, 'm', now),
    ).not.toThrow();
  });
});

describe('monitorable', () => {
  const metric = (o: Partial<Metric>): Metric =>
    ({
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      legacyAt: null,
      disabledAt: null,
      ...o,
    }) as Metric;
  it('excludes deleted, disabled, legacy, human and self-hosted metrics and test-case-only parameters', () => {
    expect(isMonitorable(metric({}), now)).toBe(true);
    expect(isMonitorable(metric({ deletedAt: '2026-01-01T00:00:00Z' }), now)).toBe(false);
    expect(isMonitorable(metric({ disabledAt: '2026-01-01T00:00:00Z' }), now)).toBe(false);
    expect(isMonitorable(metric({ disabledAt: '2027-01-01T00:00:00Z' }), now)).toBe(true);
    expect(isMonitorable(metric({ legacyAt: '2026-01-01T00:00:00Z' }), now)).toBe(false);
    expect(isMonitorable(metric({ source: 'HUMAN_EVALUATION' }), now)).toBe(false);
    expect(isMonitorable(metric({ source: 'SELF_HOSTED' }), now)).toBe(false);
    expect(isMonitorable(metric({ source: 'DETERMINISTIC' }), now)).toBe(true);
    expect(isMonitorable(metric({ evaluationParams: ['actual_output', 'expected_output'] }), now)).toBe(false);
    expect(whyNotMonitorable(metric({ evaluationParams: ['goal'] }), now)).toBe(
      'it needs test-case-only parameters (goal)',
    );
    // a check's evaluationParams is its target: one on expected_output cannot watch production traffic
    const check = (target: 'expected_output' | 'input') =>
      metric({ source: 'DETERMINISTIC', check: { type: 'contains', target, value: 'x' }, evaluationParams: [target] });
    expect(isMonitorable(check('input'), now)).toBe(true);
    expect(whyNotMonitorable(check('expected_output'), now)).toBe(
      'it needs test-case-only parameters (expected_output)',
    );
  });
});

describe('specification rules', () => {
  it.each([
    [{ type: 'POLICY', testType: null, testVariant: null }, 'testType is required when type is POLICY'],
    [
      { type: 'CAPABILITY', testType: 'QUALITY', testVariant: 'rag' },
      'testType must not be set when type is CAPABILITY',
    ],
    [{ type: 'POLICY', testType: 'QUALITY', testVariant: null }, 'testVariant is required when testType is QUALITY'],
    [{ type: 'POLICY', testType: 'RED_TEAMING', testVariant: 'rag' }, /testVariant must be one of: data_leakage/],
    [
      { type: 'POLICY', testType: 'SCENARIOS', testVariant: 'rag' },
      'testVariant must not be set when testType is SCENARIOS',
    ],
    [{ type: 'INABILITY', testType: null, testVariant: 'rag' }, 'testVariant must not be set without a testType'],
  ])('%j is refused', (spec, message) => {
    expect(() => checkSpecification(spec as never)).toThrow(message);
  });
  it('accepts valid combinations', () => {
    expect(() =>
      checkSpecification({ type: 'POLICY', testType: 'QUALITY', testVariant: 'summarization' }),
    ).not.toThrow();
    expect(() => checkSpecification({ type: 'POLICY', testType: 'SCENARIOS', testVariant: null })).not.toThrow();
    expect(() => checkSpecification({ type: 'CAPABILITY', testType: null, testVariant: null })).not.toThrow();
  });
});
