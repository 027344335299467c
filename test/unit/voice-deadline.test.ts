import { describe, expect, it } from 'vitest';
import { newsDueAt } from '../../shared/domain/runs/session/decide.js';
import { CALL_NEWS_WINDOW_MS, MAX_ANSWER_SECONDS } from '../../shared/voice/line.js';

describe("a voice step's deadline", () => {
  const now = Date.UTC(2026, 10, 26);

  it('comes the news window after the utterance has played', () => {
    expect(newsDueAt(now, { turn: 2, utteranceMs: 4_200 }, false)).toBe(now + 4_200 + CALL_NEWS_WINDOW_MS);
    // Sessions written before the utterance's length was kept: the window alone.
    expect(newsDueAt(now, { turn: 2 }, false)).toBe(now + CALL_NEWS_WINDOW_MS);
  });

  it("gives a first turn whose agent speaks first the longest answer more, for the agent's greeting", () => {
    const greeting = MAX_ANSWER_SECONDS * 1000;
    expect(newsDueAt(now, { turn: 1, utteranceMs: 1_000 }, true)).toBe(now + greeting + 1_000 + CALL_NEWS_WINDOW_MS);
    expect(newsDueAt(now, { turn: 1, utteranceMs: 1_000 }, false)).toBe(now + 1_000 + CALL_NEWS_WINDOW_MS);
    expect(newsDueAt(now, { turn: 2, utteranceMs: 1_000 }, true)).toBe(now + 1_000 + CALL_NEWS_WINDOW_MS);
  });

  it('holds the ring, the longest answer and four minutes more', () => {
    expect(CALL_NEWS_WINDOW_MS).toBeGreaterThanOrEqual((60 + MAX_ANSWER_SECONDS + 240) * 1000);
  });
});
