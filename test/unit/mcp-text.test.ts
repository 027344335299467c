import { describe, expect, it } from 'vitest';
import * as text from '../../shared/mcp/text.js';
import type { FailingCases } from '../../shared/domain/runs/failing-cases.js';
import type { RunComparison } from '../../shared/schemas/runs.js';

/** The MCP tools' texts (shared/mcp/text.ts): what a person reads in the chat beside the JSON. */
describe('MCP tool texts', () => {
  it('say when nothing matches, and where a page starts', () => {
    expect(text.runList([], 0, 0)).toBe('No runs match.');
    expect(text.runList([], 3, 20)).toBe('No runs past 20 (3 match).');
  });

  it('give a comparison per metric: verdict, scores, difference with its interval, adjusted p, n', () => {
    const comparison: RunComparison = {
      runId: 'run_b',
      baseRunId: 'run_a',
      pairedBy: 'testCaseId',
      verdict: 'regressed',
      metrics: [
        {
          metricId: 'met_text_similarity',
          name: 'text_similarity',
          n: 7,
          onlyInBase: 0,
          onlyInRun: 0,
          baseScore: 0.589,
          score: 0.212,
          difference: -0.377,
          standardError: 0.067,
          confidenceInterval: [-0.54, -0.214],
          pValue: 0.001,
          adjustedPValue: 0.002,
          verdict: 'regressed',
          minimumDetectableEffect: 0.231,
        },
      ],
    };
    expect(text.comparison(comparison)).toBe(
      [
        'Run run_b against base run_a (paired by test case): regressed',
        '- text_similarity: regressed, 0.589 → 0.212 (-0.377 [-0.540, -0.214], adjusted p 0.002, n 7, detectable ±0.231)',
      ].join('\n'),
    );
  });

  it('list failing cases with input, expected, output and the reason, and say how to read on', () => {
    const page: FailingCases = {
      runId: 'run_b',
      runStatus: 'COMPLETED',
      threshold: 0.5,
      total: 3,
      sessions: 7,
      offset: 0,
      items: [
        {
          sessionId: 'sess_1',
          testCaseId: 'tcase_1',
          repetition: 1,
          sessionStatus: 'COMPLETED',
          sessionError: null,
          input: 'Where is my order?',
          expectedOutput: 'It ships tomorrow.',
          turns: [{ input: 'Where is my order?', output: 'Please contact support.' }],
          metrics: [{ metricId: 'met_a', name: 'accuracy', score: 0.1, reason: 'wrong answer', error: null }],
        },
        {
          sessionId: 'sess_2',
          testCaseId: 'tcase_2',
          repetition: 2,
          sessionStatus: 'FAILED',
          sessionError: 'agent answered 500',
          input: 'Refund?',
          expectedOutput: null,
          turns: [],
          metrics: [{ metricId: 'met_a', name: 'accuracy', score: null, reason: null, error: 'judge down' }],
        },
      ],
    };
    expect(text.failingCases(page)).toBe(
      [
        'Run run_b (COMPLETED, threshold 0.5): 3 of 7 session(s) did not pass.',
        '1. case tcase_1, session sess_1',
        '   input: Where is my order?',
        '   expected: It ships tomorrow.',
        '   output: Please contact support.',
        '   accuracy: 0.10: wrong answer',
        '2. case tcase_2 (repetition 2), session sess_2: FAILED (agent answered 500)',
        '   input: Refund?',
        '   accuracy: evaluation failed (judge down)',
        'More: call again with offset 2.',
      ].join('\n'),
    );
  });

  it('say when a reviewer has nothing left', () => {
    expect(text.reviewTask(undefined, 'ana')).toBe('Nothing left to review for ana in this queue.');
  });
});
