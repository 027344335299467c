import { describe, expect, it } from 'vitest';
import { deterministicSessionId } from '../../shared/domain/runs/session-ids.js';
import { runView, type RunWithFigures } from '../../shared/domain/runs/run-view.js';
import { defaultRunName } from '../../shared/domain/runs/runs.js';
import { parseRunJob } from '../../shared/queue/run-queue.js';
import { addScore, emptySums, scorePoint } from '../../shared/domain/monitors/statistics.js';
import type { StoredRun } from '../../shared/db/runs.js';
import { shardOf, sumShards } from '../../shared/db/run-counters.js';
import { NO_RUN_VOICE } from '../../shared/domain/runs/run-voice.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const decodeTime = (ulid: string) => [...ulid.slice(0, 10)].reduce((t, c) => t * 32 + CROCKFORD.indexOf(c), 0);

describe('run session ids', () => {
  it('are valid session ids, the same for the same (run, case), different otherwise, timed at the run', () => {
    const at = Date.parse('2026-11-24T06:00:00.123Z');
    const a = deterministicSessionId('run_A', 'tcase_1', at);
    expect(a).toMatch(/^sess_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(deterministicSessionId('run_A', 'tcase_1', at)).toBe(a);
    expect(deterministicSessionId('run_A', 'tcase_2', at)).not.toBe(a);
    expect(deterministicSessionId('run_B', 'tcase_1', at)).not.toBe(a);
    expect(decodeTime(a.slice(5))).toBe(at);
  });

  it('differ per repetition; the first repetition keeps the id runs had before repetitions', () => {
    const at = Date.parse('2026-11-24T06:00:00.123Z');
    const first = deterministicSessionId('run_A', 'tcase_1', at);
    expect(deterministicSessionId('run_A', 'tcase_1', at, 1)).toBe(first);
    const ids = [1, 2, 3, 10].map((r) => deterministicSessionId('run_A', 'tcase_1', at, r));
    expect(new Set(ids).size).toBe(4);
    expect(ids.every((id) => decodeTime(id.slice(5)) === at)).toBe(true);
  });
});

describe('a run created without a name', () => {
  it('is named "<version> · <test> · <day>, <time>" in UTC', () => {
    const at = new Date('2026-11-28T04:47:40.561Z');
    expect(defaultRunName('v1', ['faq'], at)).toBe('v1 · faq · Nov 28, 04:47');
    // UTC, whatever the machine's zone: 23:05 on Jan 1 stays Jan 1
    expect(defaultRunName('v2', ['faq'], new Date('2027-01-01T23:05:00.000Z'))).toBe('v2 · faq · Jan 1, 23:05');
  });

  it('names the first test and how many more a run of several tests has', () => {
    const at = new Date('2026-03-09T10:00:00.000Z');
    expect(defaultRunName('v1', ['faq', 'refunds', 'tone'], at)).toBe('v1 · faq + 2 more · Mar 9, 10:00');
  });

  it('fits the 200 characters a name may have, keeping the date', () => {
    const at = new Date('2026-11-28T04:47:40.561Z');
    for (const [version, test] of [
      ['v'.repeat(300), 't'.repeat(300)],
      ['v1', 't'.repeat(300)],
      ['v'.repeat(300), 'faq'],
    ] as const) {
      const name = defaultRunName(version, [test, 'other'], at);
      expect(name.length).toBeLessThanOrEqual(200);
      expect(name).toMatch(/ \+ 1 more · Nov 28, 04:47$/);
    }
    expect(defaultRunName('v1', ['t'.repeat(300)], at)).toMatch(/^v1 · t+… · Nov 28, 04:47$/);
    expect(defaultRunName('v'.repeat(300), ['faq'], at)).toMatch(/^v+… · faq · Nov 28, 04:47$/);
  });
});

function storedRun(stats: StoredRun['_stats'], extra: Partial<RunWithFigures> = {}): RunWithFigures {
  return {
    id: 'run_X',
    organizationId: 'org_X',
    productId: 'prod_X',
    versionId: 'ver_X',
    userId: 'usr_X',
    name: 'r',
    testIds: ['test_X'],
    specificationIds: [],
    metricIds: Object.keys(stats),
    repetitions: 1,
    threshold: 0.5,
    status: 'RUNNING',
    progress: { total: 40, pending: 0, running: 0, completed: 40, failed: 0 },
    error: null,
    createdAt: '2026-11-24T06:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    _plan: [
      { testId: 'test_X', testType: 'QUALITY', specificationId: null, metricIds: Object.keys(stats), caseCount: 40 },
    ],
    _stats: stats,
    _metricNames: { met_a: 'alpha', met_b: 'beta' },
    ...extra,
  };
}

describe('the run record', () => {
  it('derives each metric: counts, the mean of SUCCESS scores, and the 95% interval from 30 scores on (weights 1)', () => {
    const scores = Array.from({ length: 30 }, (_, i) => (i % 3) / 2);
    const sx = scores.reduce((a, b) => a + b, 0);
    const sxx = scores.reduce((a, b) => a + b * b, 0);
    const view = runView(
      storedRun({
        met_a: { n: 30, sx, sxx, failed: 2, skipped: 1 },
        met_b: { n: 29, sx: 29 * 0.5, sxx: 29 * 0.25, failed: 0, skipped: 0 },
      }),
    );
    const expected = scorePoint(scores.reduce((s, x) => addScore(s, x, 1), emptySums()));
    expect(view.metrics[0]).toEqual({
      metricId: 'met_a',
      name: 'alpha',
      evaluated: 30,
      failed: 2,
      skipped: 1,
      score: expected.score,
      confidenceInterval: expected.confidenceInterval,
      passRate: null,
    });
    expect(view.metrics[0]!.confidenceInterval!.lower).toBeLessThan(view.metrics[0]!.score!);
    expect(view.metrics[1]).toMatchObject({ metricId: 'met_b', evaluated: 29, score: 0.5, confidenceInterval: null });
    expect(Object.keys(view).filter((k) => k.startsWith('_'))).toEqual([]);
  });

  it('shows a metric nothing scored yet as null', () => {
    const view = runView(storedRun({ met_a: { n: 0, sx: 0, sxx: 0, failed: 3, skipped: 0 } }));
    expect(view.metrics).toEqual([
      {
        metricId: 'met_a',
        name: 'alpha',
        evaluated: 0,
        failed: 3,
        skipped: 0,
        score: null,
        confidenceInterval: null,
        passRate: null,
      },
    ]);
  });

  it('shows the pass figures kept at the finish; pass^k and pass@k only with repetitions', () => {
    const stats = {
      met_a: { n: 4, sx: 2, sxx: 1, failed: 0, skipped: 0 },
      met_b: { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 },
    };
    const figures = { met_a: { passRate: 0.75, passAllK: 0.5, passAnyK: 1 } };
    const once = runView(storedRun(stats, { _passFigures: figures }));
    expect(once.metrics.map((m) => m.passRate)).toEqual([0.75, null]);
    expect(once.metrics.every((m) => !('passAllK' in m) && !('passAnyK' in m))).toBe(true);
    const repeated = runView(storedRun(stats, { _passFigures: figures, repetitions: 3, threshold: 0.8 }));
    expect(repeated).toMatchObject({ repetitions: 3, threshold: 0.8 });
    expect(repeated.metrics.map((m) => [m.passRate, m.passAllK, m.passAnyK])).toEqual([
      [0.75, 0.5, 1],
      [null, null, null],
    ]);
  });

  it('reads a run stored before repetitions as one repetition at threshold 0.5, and shows no internal field', () => {
    const old = storedRun({ met_a: { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 } }) as Partial<RunWithFigures>;
    delete old.repetitions;
    delete old.threshold;
    const view = runView({ ...(old as RunWithFigures), _fanoutDone: true } as RunWithFigures);
    expect(view).toMatchObject({ repetitions: 1, threshold: 0.5 });
    expect(Object.keys(view).filter((k) => k.startsWith('_'))).toEqual([]);
  });
});

describe("a PHONE run's voice figures", () => {
  it('show its barge-in and, once finished, its recovery beside the latency; null before and without barge-ins', () => {
    const base = storedRun({ met_a: { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 } });
    const phone = { ...base, channel: 'PHONE' as const, bargeInAfterMs: 800 };
    expect(runView(phone)).toMatchObject({
      bargeInAfterMs: 800,
      voice: { responseLatencyMs: null, bargeInRecovery: null },
    });
    const recovery = { rate: 0.75, p50: 140, p95: null };
    const finished = runView({
      ...phone,
      _voice: { responseLatencyMs: { p50: 610, p95: 700 } },
      _bargeInRecovery: recovery,
    });
    expect(finished.voice).toEqual({
      ...NO_RUN_VOICE,
      responseLatencyMs: { p50: 610, p95: 700 },
      bargeInRecovery: recovery,
    });
    // An HTTP run has no voice figures.
    expect(runView(base)).not.toHaveProperty('voice');
  });
});

describe('the run record from counter shards', () => {
  const sharded = (status: StoredRun['status'], extra: Partial<StoredRun> = {}): StoredRun => ({
    ...storedRun({ met_a: { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 } }),
    status,
    progress: { total: 10, pending: 10, running: 0, completed: 0, failed: 0 },
    _shards: 2,
    ...extra,
  });
  const shard = (fields: Record<string, unknown>) => ({ pk: 'RUNSHARD#run_X#0', sk: '#', ...fields });

  it('sums the shards: pending, running, completed, failed and each metric, adding up to the total', () => {
    const sums = sumShards([
      shard({ started: 4, completed: 2, failed: 1, 'n:met_a': 2, 'sx:met_a': 1.5, 'sxx:met_a': 1.25 }),
      shard({ started: 3, completed: 1, 'n:met_a': 1, 'sx:met_a': 0.5, 'sxx:met_a': 0.25, 'skipped:met_a': 1 }),
    ]);
    const view = runView(sharded('RUNNING'), sums);
    expect(view.progress).toEqual({ total: 10, pending: 3, running: 3, completed: 3, failed: 1 });
    expect(view.metrics[0]).toMatchObject({ evaluated: 3, skipped: 1, score: 2 / 3 });
  });

  it('never goes backwards as sessions move on, and shows a cancelled run’s unstarted sessions as failed', () => {
    const steps = [
      [shard({}), shard({})],
      [shard({ started: 2 }), shard({ started: 1 })],
      [shard({ started: 3, completed: 1 }), shard({ started: 1, failed: 1 })],
      [shard({ started: 5, completed: 4 }), shard({ started: 5, completed: 1, failed: 1 })],
    ].map((items) => runView(sharded('RUNNING'), sumShards(items)).progress);
    for (let i = 1; i < steps.length; i++) {
      expect(steps[i]!.completed).toBeGreaterThanOrEqual(steps[i - 1]!.completed);
      expect(steps[i]!.failed).toBeGreaterThanOrEqual(steps[i - 1]!.failed);
      expect(steps[i]!.pending).toBeLessThanOrEqual(steps[i - 1]!.pending);
    }
    const cancelled = sumShards([shard({ started: 3, completed: 1, cancelled: true }), shard({ started: 1 })]);
    expect(runView(sharded('CANCELLED'), cancelled).progress).toEqual({
      total: 10,
      pending: 0,
      running: 3,
      completed: 1,
      failed: 6,
    });
  });

  it('reads its own item once the counters were summed into it, and a run without shards always', () => {
    const finalRun = sharded('COMPLETED', {
      _final: true,
      progress: { total: 10, pending: 0, running: 0, completed: 9, failed: 1 },
    });
    expect(runView(finalRun, sumShards([shard({ started: 99 })])).progress.completed).toBe(9);
    const unsharded = { ...finalRun, _final: undefined, _shards: undefined, status: 'RUNNING' as const };
    expect(runView(unsharded, sumShards([shard({ completed: 99 })])).progress.completed).toBe(9);
  });

  it('hashes a session to one shard, the same every time, spread over all of them', () => {
    const ids = Array.from({ length: 1600 }, (_, i) => deterministicSessionId('run_A', `tcase_${i}`, 0));
    const counts = new Array(16).fill(0);
    for (const id of ids) counts[shardOf(id, 16)]++;
    expect(shardOf(ids[0]!, 16)).toBe(shardOf(ids[0]!, 16));
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(150);
  });
});

describe('run jobs', () => {
  it('parses the two job kinds and drops anything else', () => {
    expect(
      parseRunJob(JSON.stringify({ kind: 'fanout', organizationId: 'o', runId: 'r', planIndex: 0 })),
    ).toMatchObject({ kind: 'fanout' });
    expect(
      parseRunJob(
        JSON.stringify({ kind: 'step', organizationId: 'o', runId: 'r', sessionId: 's', seq: 3, attempts: 1 }),
      ),
    ).toMatchObject({ kind: 'step', seq: 3 });
    expect(
      parseRunJob(JSON.stringify({ kind: 'step', organizationId: 'o', runId: 'r', sessionId: 's', seq: 1.5 })),
    ).toBeUndefined();
    expect(parseRunJob(JSON.stringify({ kind: 'fanout', runId: 'r', planIndex: 0 }))).toBeUndefined();
    expect(parseRunJob('not json')).toBeUndefined();
  });
});
