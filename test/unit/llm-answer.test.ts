import { describe, expect, it } from 'vitest';
import { answerContent, answerValidator, parseAnswer, retryAfterMs, retryDelayMs } from '../../shared/llm/answer.js';
import { JUDGE_SCORE_SCHEMA } from '../../shared/judge/client.js';
import { SIMULATED_USER_TURN_SCHEMA } from '../../shared/domain/runs/simulator.js';

const headers = (h: Record<string, string>) => new Headers(h);

describe('structured answers are parsed and validated', () => {
  it.each([
    ['{"score": 0.8, "reason": "polite"}', { score: 0.8, reason: 'polite' }],
    ['```json\n{"score": 1, "reason": "x"}\n```', { score: 1, reason: 'x' }],
    ['```\n{"score": 0, "reason": ""}\n```', { score: 0, reason: '' }],
    ['  {"score": 0.5, "reason": "padded"}\n', { score: 0.5, reason: 'padded' }],
  ])('accepts %s', async (raw, value) =>
    expect(await parseAnswer(raw, JUDGE_SCORE_SCHEMA, 'judge_score', 'judge')).toEqual({ ok: true, value }),
  );

  it.each([
    ['Score: 0.8', 'the judge\'s answer is not JSON: "Score: 0.8"'],
    ['{"score": 0.8, "reason": "x"', 'the judge\'s answer is not JSON: "{\\"score\\": 0.8, \\"reason\\": \\"x\\""'],
    ['{"score": 1.5, "reason": "x"}', "the judge's answer does not match judge_score: score must be at most 1"],
    ['{"score": "0.5", "reason": "x"}', "the judge's answer does not match judge_score: score must be a number"],
    ['{"score": 0.5}', "the judge's answer does not match judge_score: reason is required"],
    [
      '{"score": 0.5, "reason": "x", "extra": 1}',
      "the judge's answer does not match judge_score: unknown field 'extra'",
    ],
    ['[0.5]', "the judge's answer does not match judge_score: the answer must be an object"],
  ])('refuses %s', async (raw, error) =>
    expect(await parseAnswer(raw, JUDGE_SCORE_SCHEMA, 'judge_score', 'judge')).toEqual({ ok: false, error }),
  );

  it('names the schema and the field for the simulator', async () => {
    expect(
      await parseAnswer(
        '{"stop": false, "reason": "continuing"}',
        SIMULATED_USER_TURN_SCHEMA,
        'simulated_user_turn',
        'simulator',
      ),
    ).toEqual({
      ok: false,
      error: "the simulator's answer does not match simulated_user_turn: message is required",
    });
    expect(
      await parseAnswer(
        '{"stop": "no", "reason": "", "message": "hi"}',
        SIMULATED_USER_TURN_SCHEMA,
        'simulated_user_turn',
        'simulator',
      ),
    ).toEqual({
      ok: false,
      error: "the simulator's answer does not match simulated_user_turn: stop must be a boolean",
    });
  });

  it('quotes a non-JSON answer cut to 500 characters', async () => {
    const result = await parseAnswer(`garbage ${'x'.repeat(1000)}`, JUDGE_SCORE_SCHEMA, 'judge_score', 'judge');
    expect(result.ok).toBe(false);
    const error = (result as { error: string }).error;
    expect(error).toContain('garbage xxx');
    expect(error.length).toBeLessThan(600);
  });

  it('compiles a schema once', async () => {
    expect(await answerValidator(JUDGE_SCORE_SCHEMA)).toBe(await answerValidator(JUDGE_SCORE_SCHEMA));
  });

  it('reads the message content, a refusal, or says there is none', () => {
    expect(answerContent({ choices: [{ message: { content: '{}' } }] }, 'judge')).toEqual({ ok: true, content: '{}' });
    expect(
      answerContent({ choices: [{ message: { content: null, refusal: 'I cannot help with that.' } }] }, 'simulator'),
    ).toEqual({
      ok: false,
      error: 'the simulator refused to answer: "I cannot help with that."',
    });
    expect(answerContent({ choices: [] }, 'generator')).toEqual({
      ok: false,
      error: 'the generator answered without a message',
    });
    expect(answerContent(undefined, 'judge')).toEqual({ ok: false, error: 'the judge answered without a message' });
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-24T10:00:00.000Z');
  it('reads delta-seconds', () => expect(retryAfterMs(headers({ 'retry-after': '7' }), now)).toBe(7000));
  it('reads an HTTP date', () =>
    expect(retryAfterMs(headers({ 'retry-after': 'Tue, 24 Nov 2026 10:00:03 GMT' }), now)).toBe(3000));
  it('a date in the past means now', () =>
    expect(retryAfterMs(headers({ 'retry-after': 'Tue, 24 Nov 2026 09:00:00 GMT' }), now)).toBe(0));
  it('prefers retry-after-ms', () =>
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '7' }), now)).toBe(250));
  it.each([[{}], [{ 'retry-after': 'soon' }], [{ 'retry-after': '-3' }]])('ignores %j', (h) =>
    expect(retryAfterMs(headers(h), now)).toBeUndefined(),
  );
});

describe('retry delay', () => {
  const config = { backoffMs: 1000, maxBackoffMs: 30_000 };
  it('grows exponentially with equal jitter', () => {
    expect([1, 2, 3].map((k) => retryDelayMs(k, undefined, config, () => 0))).toEqual([500, 1000, 2000]);
    expect([1, 2, 3].map((k) => retryDelayMs(k, undefined, config, () => 1))).toEqual([1000, 2000, 4000]);
  });
  it('lets a longer Retry-After win, and a shorter one not shorten it', () => {
    expect(retryDelayMs(1, 5000, config, () => 1)).toBe(5000);
    expect(retryDelayMs(3, 100, config, () => 1)).toBe(4000);
  });
  it('caps both at maxBackoffMs', () => {
    expect(retryDelayMs(10, undefined, config, () => 1)).toBe(30_000);
    expect(retryDelayMs(1, 3_600_000, config, () => 0)).toBe(30_000);
  });
});
