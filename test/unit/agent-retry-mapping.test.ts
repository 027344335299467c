import { describe, expect, it } from 'vitest';
import { backoffDelay, mapAnswer, parseRetryAfter, retryWait } from '../../shared/domain/runs/caller/index.js';

describe('backoff delays (retry k is 1-based)', () => {
  it('FIXED waits the initial delay every time', () => {
    expect([1, 2, 3, 4].map((k) => backoffDelay('FIXED', 500, k, 60_000))).toEqual([500, 500, 500, 500]);
  });
  it('LINEAR waits initial × k', () => {
    expect([1, 2, 3, 4].map((k) => backoffDelay('LINEAR', 500, k, 60_000))).toEqual([500, 1000, 1500, 2000]);
  });
  it('EXPONENTIAL waits initial × 2^(k−1)', () => {
    expect([1, 2, 3, 4, 5].map((k) => backoffDelay('EXPONENTIAL', 500, k, 60_000))).toEqual([
      500, 1000, 2000, 4000, 8000,
    ]);
  });
  it('every strategy is capped at retryMaxDelayMs, and that at 60 s', () => {
    expect(backoffDelay('EXPONENTIAL', 1000, 10, 5000)).toBe(5000);
    expect(backoffDelay('LINEAR', 1000, 10, 3000)).toBe(3000);
    expect(backoffDelay('FIXED', 9000, 1, 2000)).toBe(2000);
    expect(backoffDelay('EXPONENTIAL', 1000, 10, 999_999)).toBe(60_000);
    expect(backoffDelay('FIXED', 0, 3, 1000)).toBe(0);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-24T10:00:00.000Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP date (a past one is 0)', () => {
    expect(parseRetryAfter('Tue, 24 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });
  it('ignores anything else', () => {
    for (const v of [undefined, '', 'soon', '-1', '1.5']) expect(parseRetryAfter(v, now)).toBeUndefined();
  });
  it('a larger Retry-After wins over the strategy, under the same cap; a smaller one does not', () => {
    const policy = { strategy: 'FIXED' as const, initialMs: 1000, maxDelayMs: 10_000 };
    expect(retryWait(policy, 1, 4000)).toBe(4000);
    expect(retryWait(policy, 1, 200)).toBe(1000);
    expect(retryWait(policy, 1, 120_000)).toBe(10_000);
    expect(retryWait(policy, 1)).toBe(1000);
  });
});

describe('output mapping', () => {
  const mapping = {
    output: '$.reply',
    retrieval_context: '$.sources[*].text',
    traces: '$.steps',
    usage: '$.usage',
    session_id: '$.session.id',
    intent: '$.meta.intent',
  };
  const answer = {
    reply: 'Refunds take 5 days.',
    sources: [{ text: 'policy A' }, { text: 'policy B' }],
    steps: [{ name: 'search', input: 'refund' }],
    usage: { input_tokens: 12, output_tokens: 7 },
    session: { id: 'agent-s-9' },
    meta: { intent: 'refund' },
  };

  it('maps every key', () => {
    const r = mapAnswer(JSON.stringify(answer), mapping);
    expect(r).toEqual({
      ok: true,
      output: 'Refunds take 5 days.',
      retrievalContext: ['policy A', 'policy B'],
      traces: [{ name: 'search', input: 'refund' }],
      usage: { inputTokens: 12, outputTokens: 7 },
      sessionId: 'agent-s-9',
      extracted: {
        output: 'Refunds take 5 days.',
        retrieval_context: ['policy A', 'policy B'],
        traces: [{ name: 'search', input: 'refund' }],
        usage: { input_tokens: 12, output_tokens: 7 },
        session_id: 'agent-s-9',
        intent: 'refund',
      },
    });
  });

  it('a single retrieval_context string becomes a one-item list; a numeric session id a string', () => {
    const r = mapAnswer(JSON.stringify({ reply: 'x', ctx: 'only one', sid: 42 }), {
      output: '$.reply',
      retrieval_context: '$.ctx',
      session_id: '$.sid',
    });
    expect(r).toMatchObject({ ok: true, retrievalContext: ['only one'], sessionId: '42' });
  });

  it('a non-JSON body is one JSON string, so `$` maps the whole text', () => {
    expect(mapAnswer('Plain text answer, not JSON {', { output: '$' })).toMatchObject({
      ok: true,
      output: 'Plain text answer, not JSON {',
    });
    expect(mapAnswer('Plain text', { output: '$.reply' })).toEqual({
      ok: false,
      error: 'the answer has no output: outputMapping.output ($.reply) matched nothing',
    });
  });

  it('a non-string output is JSON-stringified', () => {
    expect(mapAnswer('{"reply": {"text": "hi", "n": 1}}', { output: '$.reply' })).toMatchObject({
      ok: true,
      output: '{"text":"hi","n":1}',
    });
    expect(mapAnswer('{"reply": 42}', { output: '$.reply' })).toMatchObject({ ok: true, output: '42' });
    expect(mapAnswer('[1, 2]', { output: '$' })).toMatchObject({ ok: true, output: '[1,2]' });
  });

  it('a missing or null output fails the turn', () => {
    expect(mapAnswer('{"other": "x"}', { output: '$.reply' })).toEqual({
      ok: false,
      error: 'the answer has no output: outputMapping.output ($.reply) matched nothing',
    });
    expect(mapAnswer('{"reply": null}', { output: '$.reply' })).toEqual({
      ok: false,
      error: 'the answer has no output: outputMapping.output ($.reply) matched null',
    });
  });

  it('optional keys that match nothing are left out', () => {
    const r = mapAnswer('{"reply": "x"}', mapping);
    expect(r).toEqual({ ok: true, output: 'x', extracted: { output: 'x' } });
  });

  it('reads OpenAI-style usage names too, and ignores usage that is not token counts', () => {
    expect(
      mapAnswer('{"r": "x", "u": {"prompt_tokens": 3, "completion_tokens": 4}}', { output: '$.r', usage: '$.u' }),
    ).toMatchObject({ usage: { inputTokens: 3, outputTokens: 4 } });
    expect(mapAnswer('{"r": "x", "u": "lots"}', { output: '$.r', usage: '$.u' })).not.toHaveProperty('usage');
  });
});
