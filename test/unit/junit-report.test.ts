import { describe, expect, it } from 'vitest';
import { caseResults, type SessionEvaluations } from '../../shared/domain/runs/case-results.js';
import { junitReport, type JunitReportInput, type JunitSession } from '../../shared/domain/runs/junit-report.js';
import { parseXml, type XmlNode } from '../support/xml.js';
import type { TestCase } from '../../shared/schemas/tests.js';

/**
 * What a run's JUnit document holds (shared/domain/runs/junit-report.ts): never green by accident.
 * Every session is a test case, a FAILED one in error with its message; a run that FAILED (or was
 * CANCELLED) adds a `run` test case in error saying why; the per-metric suites are as before.
 */
const testCase = (id: string, index: number, input: string): TestCase =>
  ({ id, testId: 'test_A', index, input }) as unknown as TestCase;
const testCases = new Map(
  [testCase('tc_1', 0, 'Where is my order?'), testCase('tc_2', 1, 'Refund?'), testCase('tc_3', 2, 'Canada?')].map(
    (c) => [c.id, c],
  ),
);

const session = (id: string, testCaseId: string, over: Partial<JunitSession> = {}): JunitSession => ({
  id,
  testId: 'test_A',
  testCaseId,
  repetition: 1,
  status: 'COMPLETED',
  error: null,
  stoppingReason: 'completed',
  ...over,
});

const run: JunitReportInput['run'] = {
  id: 'run_X',
  name: 'nightly',
  status: 'COMPLETED',
  error: null,
  metricIds: ['met_sim'],
  testIds: ['test_A'],
  threshold: 0.5,
  repetitions: 1,
  _metricNames: { met_sim: 'text_similarity' },
};

function report(
  sessions: JunitSession[],
  evaluations: Record<string, SessionEvaluations['evaluations']> = {},
  over = {},
) {
  const withEvaluations = sessions.map((s) => ({ session: s, evaluations: evaluations[s.id] ?? [] }));
  return parseXml(
    junitReport({
      run,
      sessions,
      cases: caseResults(withEvaluations),
      testCases,
      testNames: new Map([['test_A', 'faq']]),
      ...over,
    }),
  );
}

const counts = (n: XmlNode) => [n.attributes.tests, n.attributes.failures, n.attributes.errors].map(Number);
const suite = (root: XmlNode, name: string) => root.children.find((s) => s.attributes.name === name);
const scored = (score: number) => [
  {
    metricId: 'met_sim',
    metricName: 'text_similarity',
    status: 'SUCCESS' as const,
    score,
    reason: `it is ${score}`,
    error: null,
  },
];

describe('the JUnit report', () => {
  it('a completed run: every session a passing test case, the metric suites as before, no run case', () => {
    const root = report([session('s_2', 'tc_2'), session('s_1', 'tc_1'), session('s_3', 'tc_3')], {
      s_1: scored(0.9),
      s_2: scored(0.2),
      s_3: scored(0.5),
    });
    expect(root.children.map((s) => s.attributes.name)).toEqual(['sessions', 'text_similarity']);
    const sessions = suite(root, 'sessions')!;
    expect(counts(sessions)).toEqual([3, 0, 0]);
    // In the test's file order, named by the case input, classed by the test's name.
    expect(sessions.children.map((c) => c.attributes)).toEqual([
      { classname: 'faq', name: 'Where is my order?' },
      { classname: 'faq', name: 'Refund?' },
      { classname: 'faq', name: 'Canada?' },
    ]);
    const metric = suite(root, 'text_similarity')!;
    expect(counts(metric)).toEqual([3, 1, 0]);
    expect(metric.children[1]!.children[0]!.attributes.message).toBe('score 0.2 is below the threshold 0.5: it is 0.2');
    expect(counts(root)).toEqual([6, 1, 0]);
  });

  it('a run whose every session failed: errors = sessions (never tests="0"), each with its session’s error, and a run case naming why', () => {
    const down = 'CONVERSATION turn 1 failed: the agent answered 500: down for maintenance';
    const sessions = ['tc_1', 'tc_2', 'tc_3'].map((tc, i) =>
      session(`s_${i + 1}`, tc, { status: 'FAILED', error: down, stoppingReason: null }),
    );
    const root = parseXml(
      junitReport({
        run: { ...run, status: 'FAILED' },
        sessions,
        cases: caseResults(sessions.map((s) => ({ session: s, evaluations: [] }))),
        testCases,
        testNames: new Map([['test_A', 'faq']]),
      }),
    );
    expect(root.children.map((s) => s.attributes.name)).toEqual(['run', 'sessions', 'text_similarity']);
    const all = suite(root, 'sessions')!;
    expect(counts(all)).toEqual([3, 0, 3]);
    for (const c of all.children) {
      const [error] = c.children;
      expect(error!.name).toBe('error');
      expect(error!.attributes.message).toBe(`session FAILED: ${down}`);
      expect(error!.text).toContain(down);
    }
    expect(all.children[0]!.children[0]!.text).toBe(`session s_1, test case tc_1, repetition 1\n${down}`);
    const runSuite = suite(root, 'run')!;
    expect(counts(runSuite)).toEqual([1, 0, 1]);
    expect(runSuite.children[0]!.attributes).toEqual({ classname: 'run', name: 'run' });
    expect(runSuite.children[0]!.children[0]!.attributes.message).toBe(
      `run FAILED: none of its 3 sessions completed (3 failed; 3 of them: ${down})`,
    );
    expect(counts(suite(root, 'text_similarity')!)).toEqual([0, 0, 0]);
    expect(counts(root)).toEqual([4, 0, 4]);
  });

  it('a FAILED run with an error of its own: the run case gives it', () => {
    const root = report([], {}, { run: { ...run, status: 'FAILED', error: 'the test was deleted before it ran' } });
    const [runCase] = suite(root, 'run')!.children;
    expect(runCase!.children[0]!.attributes.message).toBe('run FAILED: the test was deleted before it ran');
    expect(counts(suite(root, 'sessions')!)).toEqual([0, 0, 0]);
    expect(counts(root)).toEqual([1, 0, 1]);
  });

  it('some sessions failed, with repetitions: each session its own case, named with its repetition; a cancelled run says so', () => {
    const sessions = [
      session('s_1a', 'tc_1'),
      session('s_1b', 'tc_1', { repetition: 2, status: 'FAILED', error: null, stoppingReason: 'cancelled' }),
      session('s_2a', 'tc_2', { status: 'PENDING', stoppingReason: null }),
    ];
    const root = report(sessions, { s_1a: scored(1) }, { run: { ...run, status: 'CANCELLED', repetitions: 2 } });
    const all = suite(root, 'sessions')!;
    expect(all.children.map((c) => c.attributes.name)).toEqual([
      'Where is my order? (repetition 1)',
      'Where is my order? (repetition 2)',
      'Refund? (repetition 1)',
    ]);
    expect(counts(all)).toEqual([3, 0, 2]);
    expect(all.children[1]!.children[0]!.attributes.message).toBe('session FAILED: no error recorded');
    expect(all.children[1]!.children[0]!.text).toContain('stopping reason: cancelled');
    expect(all.children[2]!.children[0]!.attributes.message).toBe('session PENDING: the run finished without it');
    expect(suite(root, 'run')!.children[0]!.children[0]!.attributes.message).toBe(
      'run CANCELLED: the run was cancelled: it tested only part of its cases (1 of 3 sessions completed, 1 failed)',
    );
    expect(counts(suite(root, 'text_similarity')!)).toEqual([1, 0, 0]);
  });
});
