import type { AuthContext } from '../../auth/context.js';
import { getRecord, listProductRecords } from '../../db/catalog.js';
import { getVisibleMetric, listSpecLinks } from '../../db/metrics.js';
import { readShard, RUN_SHARDS, shardCancel, shardKeys, type ShardSums } from '../../db/run-counters.js';
import {
  createRun,
  runSessionIds,
  finishRunWhenDone,
  getRunWithShards,
  getStoredRun,
  listStoredRuns,
  markTests,
  setRunStatus,
  shardsOfRuns,
  testCasesById,
  type MetricStat,
  type RunPlanEntry,
  type StoredRun,
} from '../../db/runs.js';
import { logger } from '../../observability/logger.js';
import { listTurns } from '../../db/sessions.js';
import { runResults, storePassFigures } from '../../db/run-results.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import type { Version } from '../../schemas/products.js';
import {
  DEFAULT_THRESHOLD,
  FINISHED_RUN_STATUSES,
  MAX_RUN_CASES,
  type Run,
  type RunChannel,
  type RunCreate,
  type RunListQuery,
  type RunMetric,
  type RunProgress,
  type RunStatus,
} from '../../schemas/runs.js';
import type { Specification } from '../../schemas/specifications.js';
import type { TestRecord } from '../../schemas/tests.js';
import { enqueueRunJobs } from '../../queue/run-queue.js';
import { clock } from '../common/clock.js';
import { phoneConnectionEntity, specificationEntity, testEntity, versionEntity } from '../common/entities.js';
import type { PhoneConnection } from '../../schemas/phone-connections.js';
import { telephonyConfigured } from '../../telephony/telephony.js';
import { newId } from '../common/ids.js';
import { anyOf, applyList, intersects, type Page } from '../common/list.js';
import { bodyReference } from '../common/references.js';
import { emptySums, scorePoint } from '../monitors/statistics.js';
import { metricFor } from '../evaluation/evaluations.js';
import { eventWrites, NO_EVENT, publish } from '../webhooks/events.js';
import { shardOfSession, type RunRef } from '../../db/run-steps.js';
import { passFigures, type PassFigures } from './pass-rates.js';

/** The reason a session ends when its run is cancelled. */
export const CANCELLED_REASON = 'cancelled';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** The longest a name may be (the `Name` schema's bound). */
const MAX_NAME = 200;

function clipName(name: string, max: number): string {
  return name.length <= max ? name : `${name.slice(0, Math.max(1, max - 1))}…`;
}

/**
 * The name of a run created without one, readable in a list: `v1 · faq · Nov 28, 04:47` (UTC),
 * `v1 · faq + 2 more · Nov 28, 04:47` when it runs several tests; at most 200 characters.
 */
export function defaultRunName(versionName: string, testNames: string[], at: Date): string {
  const when = `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}, ${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
  const [first = 'no test', ...others] = testNames;
  const more = others.length ? ` + ${others.length} more` : '';
  // The version and the test share what the date and separators leave, each at least a third of it.
  const room = MAX_NAME - when.length - more.length - 6;
  const version = clipName(versionName, Math.max(Math.floor(room / 3), room - first.length));
  const test = clipName(first, room - version.length);
  return `${version} · ${test}${more} · ${when}`;
}

async function metricsById(auth: AuthContext, ids: string[]): Promise<StoredMetric[]> {
  const out: StoredMetric[] = [];
  for (const id of ids) out.push(await metricFor(auth, id));
  return out;
}

/** The live metrics linked to a specification (what scores its tests when the run names none). */
async function linkedMetrics(auth: AuthContext, specId: string): Promise<StoredMetric[]> {
  const links = await listSpecLinks(auth.organizationId, specId);
  const out: StoredMetric[] = [];
  for (const l of links) {
    const metric = await getVisibleMetric(auth.organizationId, l.metricId).catch(() => undefined);
    if (metric && !metric.deletedAt) out.push(metric);
  }
  return out;
}

/**
 * How the run reaches the agent: the channel asked for, else HTTP when the version has a
 * CONVERSATION endpoint connection, else PHONE when it has a phone connection. Every reason a
 * PHONE run could not dial is a 400 here, never a session that fails later.
 */
async function runChannel(org: string, version: Version, asked: RunChannel | undefined): Promise<RunChannel> {
  const channel =
    asked ?? (version.conversationEndpointConnectionId ? 'HTTP' : version.phoneConnectionId ? 'PHONE' : undefined);
  if (!channel)
    throw new ValidationError(
      `conversationEndpointConnectionId or phoneConnectionId: version ${version.id} has neither a CONVERSATION endpoint connection nor a phone connection; set conversationEndpointConnectionId (runs over HTTP) or phoneConnectionId (voice runs) on the version`,
    );
  if (channel === 'HTTP') {
    if (!version.conversationEndpointConnectionId)
      throw new ValidationError(
        `conversationEndpointConnectionId: version ${version.id} has no CONVERSATION endpoint connection; set conversationEndpointConnectionId on the version, or run it with channel PHONE`,
      );
    return channel;
  }
  if (!version.phoneConnectionId)
    throw new ValidationError(
      `phoneConnectionId: channel PHONE needs a phone connection on version ${version.id}; set phoneConnectionId on the version`,
    );
  const phone = await getRecord<PhoneConnection>(phoneConnectionEntity, org, version.phoneConnectionId, {
    includeDeleted: true,
  }).catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
  if (!phone || phone.deletedAt)
    throw new ValidationError(
      `phoneConnectionId: the phone connection ${version.phoneConnectionId} of version ${version.id} was deleted; name another one on the version`,
    );
  if (!telephonyConfigured()) throw new ValidationError('channel: no telephony is configured for this deployment');
  return channel;
}

function requireRunnable(test: TestRecord, field: string): void {
  if (test.status !== 'SUCCESS')
    throw new ValidationError(`${field}: test ${test.id} is ${test.status}; only SUCCESS tests can run`);
}

/**
 * POST /runs: validates the request, resolves what runs (tests, cases) and what scores it
 * (metrics), counts the cases so `progress.total` is right at once, stores the run PENDING and
 * puts the fan-out job on the run queue. Every refusal happens before anything is written.
 */
export async function createRunFor(auth: AuthContext, input: RunCreate): Promise<Run> {
  if (input.testId && input.specificationIds)
    throw new ValidationError(
      'testId and specificationIds cannot both be given: name one test, or the specifications whose tests run',
    );
  if (!input.testId && !input.specificationIds)
    throw new ValidationError('one of testId or specificationIds is required');
  if (input.testCaseIds && !input.testId) throw new ValidationError('testCaseIds may be given only with testId');
  const org = auth.organizationId;
  const version = await bodyReference(
    () => getRecord<Version>(versionEntity, org, input.versionId),
    'versionId',
    input.versionId,
    'version',
  );
  const channel = await runChannel(org, version, input.channel);
  const given = input.metricIds ? await metricsById(auth, input.metricIds) : undefined;
  const names = new Map<string, string>();
  const plan: RunPlanEntry[] = [];
  const testNames: string[] = [];

  if (input.testId) {
    const test = await bodyReference(
      () => getRecord<TestRecord>(testEntity, org, input.testId!),
      'testId',
      input.testId,
      'test',
    );
    if (test.productId !== version.productId)
      throw new ValidationError(`testId: test ${test.id} belongs to another product than version ${version.id}`);
    requireRunnable(test, 'testId');
    testNames.push(test.name);
    let caseCount = test.testCaseCount;
    if (input.testCaseIds) {
      const cases = await testCasesById(org, input.testCaseIds);
      const found = new Map(cases.map((c) => [c.id, c]));
      for (const id of input.testCaseIds) {
        const c = found.get(id);
        if (!c || c.testId !== test.id)
          throw new ValidationError(`testCaseIds: ${id} is not a test case of test ${test.id}`);
      }
      caseCount = cases.length;
    }
    const metrics = given ?? (test.specificationId ? await linkedMetrics(auth, test.specificationId) : []);
    if (metrics.length === 0) {
      throw new ValidationError(
        `metricIds: nothing to score: test ${test.id} has no specification with linked metrics; link metrics to its specification or give metricIds`,
      );
    }
    for (const m of metrics) names.set(m.id, m.name);
    plan.push({
      testId: test.id,
      testType: test.type,
      specificationId: test.specificationId,
      metricIds: metrics.map((m) => m.id),
      ...(input.testCaseIds ? { testCaseIds: input.testCaseIds } : {}),
      caseCount,
    });
  } else {
    const tests = await listProductRecords<TestRecord>(testEntity, org, [version.productId]);
    for (const specId of input.specificationIds!) {
      const spec = await bodyReference(
        () => getRecord<Specification>(specificationEntity, org, specId),
        'specificationIds',
        specId,
        'specification',
      );
      if (spec.productId !== version.productId)
        throw new ValidationError(
          `specificationIds: specification ${spec.id} belongs to another product than version ${version.id}`,
        );
      const runnable = tests
        .filter((t) => t.specificationId === spec.id && t.status === 'SUCCESS')
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      if (runnable.length === 0)
        throw new ValidationError(`specificationIds: specification ${spec.id} has no SUCCESS test to run`);
      const metrics = given ?? (await linkedMetrics(auth, spec.id));
      if (metrics.length === 0)
        throw new ValidationError(
          `metricIds: nothing to score: specification ${spec.id} has no linked metrics; link metrics or give metricIds`,
        );
      for (const m of metrics) names.set(m.id, m.name);
      for (const t of runnable) testNames.push(t.name);
      for (const t of runnable)
        plan.push({
          testId: t.id,
          testType: t.type,
          specificationId: spec.id,
          metricIds: metrics.map((m) => m.id),
          caseCount: t.testCaseCount,
        });
    }
  }

  const cases = plan.reduce((n, p) => n + p.caseCount, 0);
  if (cases === 0)
    throw new ValidationError(`nothing to run: the ${input.testId ? 'test has' : 'tests have'} no test cases`);
  const repetitions = input.repetitions ?? 1;
  const total = cases * repetitions;
  if (total > MAX_RUN_CASES)
    throw new ValidationError(
      `repetitions: a run may execute at most ${MAX_RUN_CASES} sessions (test cases × repetitions); this one has ${cases} test cases × ${repetitions} repetition${repetitions === 1 ? '' : 's'} = ${total}`,
    );

  const nowDate = clock.now();
  const now = nowDate.toISOString();
  const metricIds = [...names.keys()];
  const stats: Record<string, MetricStat> = Object.fromEntries(
    metricIds.map((id) => [id, { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 }]),
  );
  const run: StoredRun = {
    id: newId('run'),
    organizationId: org,
    productId: version.productId,
    versionId: version.id,
    userId: auth.userId,
    name: input.name ?? defaultRunName(version.name, [...new Set(testNames)], nowDate),
    testIds: [...new Set(plan.map((p) => p.testId))],
    specificationIds: input.specificationIds ?? [
      ...new Set(plan.map((p) => p.specificationId).filter((s): s is string => s !== null)),
    ],
    metricIds,
    repetitions,
    threshold: input.threshold ?? DEFAULT_THRESHOLD,
    channel,
    status: 'PENDING',
    progress: { total, pending: total, running: 0, completed: 0, failed: 0 },
    error: null,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    _plan: plan,
    _stats: stats,
    _metricNames: Object.fromEntries(names),
    _shards: RUN_SHARDS,
    _passCounted: true,
  };
  await createRun(run);
  await enqueueRunJobs([{ kind: 'fanout', organizationId: org, runId: run.id, planIndex: 0 }]);
  return runView(run);
}

/**
 * What a run's counters say: from its shards while sessions are being counted (`sums`), from its
 * own item once they were summed into it (or for a run without shards). Each shard only grows and
 * is read consistently, so the progress never goes backwards: `completed` and `failed` only grow,
 * `pending` only shrinks. A cancelled run's sessions that have not started never will (the cancel
 * job fails them, or their first step does): they show as failed at once.
 */
export function countersOf(
  run: StoredRun,
  sums: ShardSums | undefined,
): { progress: RunProgress; stats: Record<string, MetricStat> } {
  if (run._final || !run._shards || !sums) return { progress: run.progress, stats: run._stats };
  const total = run.progress.total;
  const done = sums.completed + sums.failed;
  const started = Math.max(sums.started, done);
  let pending = Math.max(0, total - started);
  let failed = sums.failed;
  if (run.status === 'CANCELLED') {
    failed += pending;
    pending = 0;
  }
  return {
    progress: { total, pending, running: Math.max(0, started - done), completed: sums.completed, failed },
    stats: sums.stats,
  };
}

/** A stored run with the pass figures kept once it finished (absent before, and on runs older than them). */
export type RunWithFigures = StoredRun & { _passFigures?: Record<string, PassFigures> };

/**
 * The record a client sees: internal fields dropped, per-metric scores derived from the counters
 * (its shards' sums while it runs), pass rates from the figures kept when the run finished. Runs
 * stored before repetitions and thresholds existed read as one repetition at 0.5.
 */
export function runView(run: RunWithFigures, sums?: ShardSums): Run {
  const rest = Object.fromEntries(Object.entries(run).filter(([k]) => !k.startsWith('_'))) as Omit<
    StoredRun,
    '_plan' | '_stats' | '_metricNames'
  >;
  const repetitions = run.repetitions ?? 1;
  const counters = countersOf(run, sums);
  const metrics: RunMetric[] = run.metricIds.map((metricId) => {
    const st = counters.stats[metricId] ?? { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 };
    const pass = run._passFigures?.[metricId] ?? countedPasses(run, st);
    const point = scorePoint(
      st.n === 0 ? emptySums() : { n: st.n, sw: st.n, swx: st.sx, sw2: st.n, sw2x: st.sx, sw2x2: st.sxx },
    );
    return {
      metricId,
      name: run._metricNames[metricId] ?? metricId,
      evaluated: st.n,
      failed: st.failed,
      skipped: st.skipped,
      score: point.score,
      confidenceInterval: point.confidenceInterval,
      passRate: pass?.passRate ?? null,
      ...(repetitions > 1 ? { passAllK: pass?.passAllK ?? null, passAnyK: pass?.passAnyK ?? null } : {}),
    };
  });
  const p = counters.progress;
  return {
    ...rest,
    repetitions,
    threshold: run.threshold ?? DEFAULT_THRESHOLD,
    channel: run.channel ?? 'HTTP',
    ...(run.channel === 'PHONE' ? { voice: run._voice ?? { responseLatencyMs: null } } : {}),
    progress: { total: p.total, pending: p.pending, running: p.running, completed: p.completed, failed: p.failed },
    metrics,
  };
}

/**
 * A voice run's response latency over its turns: the median and the 95th percentile, linearly
 * interpolated between the closest ranks (the usual sample quantile, R's type 7); null without turns.
 */
export async function computeVoiceFigures(run: StoredRun): Promise<NonNullable<StoredRun['_voice']>> {
  const latencies: number[] = [];
  for (const id of await runSessionIds(run.id))
    for (const turn of await listTurns(id)) if (typeof turn.latencyMs === 'number') latencies.push(turn.latencyMs);
  if (latencies.length === 0) return { responseLatencyMs: null };
  latencies.sort((a, b) => a - b);
  return { responseLatencyMs: { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) } };
}

/** The q-quantile of sorted values, linearly interpolated (type 7). */
export function quantile(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return Math.round((sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!)) * 10) / 10;
}

/**
 * The pass rate of a finished run of one repetition that counted its passes: the evaluations that
 * reached the threshold over the scored ones (what `passFigures` computes from the evaluations).
 */
function countedPasses(run: StoredRun, st: MetricStat): PassFigures | undefined {
  if (!run._passCounted || (run.repetitions ?? 1) > 1) return undefined;
  if (run.status !== 'COMPLETED' && run.status !== 'FAILED') return undefined;
  return { passRate: st.n === 0 ? null : (st.np ?? 0) / st.n, passAllK: null, passAnyK: null };
}

/** The pass figures of each metric of a run, from its sessions' evaluations. */
export async function computePassFigures(run: StoredRun): Promise<Record<string, PassFigures>> {
  const results = await runResults(run.id);
  return passFigures(
    results.map((r) => ({
      testCaseId: r.session.testCaseId,
      repetition: r.session.repetition ?? 1,
      evaluations: r.evaluations,
    })),
    run.metricIds,
    run.threshold ?? DEFAULT_THRESHOLD,
    run.repetitions ?? 1,
  );
}

/**
 * Finishes the run when its last session is counted, and sends `run.completed` / `run.failed`
 * (the run as it now reads): the event is written in the transaction that finishes the run, so it
 * goes out once however many jobs race to finish it or are redelivered. A run with counter shards
 * finishes once the fan-out sealed them and every session they expect is counted: its counters
 * are summed into its item then (exact from there on), and a cancelled run's too. The pass figures
 * are computed when it finishes (every session is counted, every evaluation settled) and written
 * with its status, so a run never reads as finished without them.
 */
export async function finishRun(orgId: string, runId: string, at: string): Promise<RunStatus | undefined> {
  const { run, sums } = await getRunWithShards(orgId, runId);
  if (!run._shards || !sums) return finishUnsharded(orgId, runId, at);
  if (run._final || !run._fanoutDone || !sums.sealed) return undefined;
  if (sums.completed + sums.failed < sums.expected) return undefined;
  const { progress } = countersOf(run, sums);
  const stats = Object.fromEntries(
    run.metricIds.map((id) => [id, sums.stats[id] ?? { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 }]),
  );
  const folded = { progress: { ...progress, pending: 0, running: 0 }, _stats: stats, _final: true };
  const finishing = run.status === 'PENDING' || run.status === 'RUNNING';
  const status: RunStatus = finishing ? (progress.completed > 0 ? 'COMPLETED' : 'FAILED') : run.status;
  const finished = finishing
    ? {
        ...folded,
        status,
        finishedAt: at,
        ...(run.startedAt ? {} : { startedAt: at }),
        // One repetition's pass rate is counted on the shards; repeated cases need every session read.
        ...((run.repetitions ?? 1) > 1 || !run._passCounted ? { _passFigures: await computePassFigures(run) } : {}),
        ...(run.channel === 'PHONE' ? { _voice: await computeVoiceFigures(run) } : {}),
      }
    : undefined;
  const set = finished ?? folded;
  const writes = finishing
    ? await eventWrites(
        orgId,
        status === 'COMPLETED' ? 'run.completed' : 'run.failed',
        runView({ ...run, ...set }),
        `run.finished#${runId}`,
      )
    : NO_EVENT;
  const done = await setRunStatus(
    orgId,
    runId,
    [run.status],
    set,
    { condition: 'attribute_not_exists(#final)', values: {}, names: { '#final': '_final' } },
    writes.items,
  );
  if (!done) return undefined;
  // The tests that got evaluations or traces say so (GET /tests?hasEvaluations, hasTraces), once
  // per run rather than once per session (every session writing the test would make it a hot item).
  const got = (counts: Record<number, number>) => run._plan.flatMap((p, i) => ((counts[i] ?? 0) > 0 ? [p.testId] : []));
  await markTests(orgId, got(sums.evaluations), '_hasEvaluations');
  await markTests(orgId, got(sums.traces), '_hasTraces');
  if (finishing) await publish(writes);
  return finishing ? status : undefined;
}

/** A run without counter shards: finished from the counters on its item. */
async function finishUnsharded(orgId: string, runId: string, at: string): Promise<RunStatus | undefined> {
  let writes = NO_EVENT;
  const status = await finishRunWhenDone(orgId, runId, at, async (run, outcome) => {
    const figures = await computePassFigures(run);
    await storePassFigures(orgId, runId, figures);
    writes = await eventWrites(
      orgId,
      outcome === 'COMPLETED' ? 'run.completed' : 'run.failed',
      runView({ ...run, _passFigures: figures }),
      `run.finished#${runId}`,
    );
    return writes.items;
  });
  if (status) await publish(writes);
  return status;
}

/**
 * After a session was counted on `shard`: the run may be finished. Its own shard (one read) says
 * whether it can be: only the sessions that complete a sealed shard read every shard.
 */
export async function afterCounted(run: RunRef, sessionId: string): Promise<void> {
  const shard = shardOfSession(run, sessionId);
  if (shard !== undefined) {
    const own = await readShard(run.runId, shard);
    if (!own.sealed || own.completed + own.failed < own.expected) return;
  }
  const status = await finishRun(run.organizationId, run.runId, clock.now().toISOString());
  if (status) logger.info('run finished', { runId: run.runId, status });
}

export async function getRunFor(auth: AuthContext, id: string): Promise<Run> {
  const { run, sums } = await getRunWithShards(auth.organizationId, id);
  return runView(run, sums);
}

export async function listRunsFor(auth: AuthContext, query: RunListQuery): Promise<Page<Run>> {
  const stored = await listStoredRuns(auth.organizationId, query.productIds);
  const sums = await shardsOfRuns(stored.filter((r) => !r._final));
  const runs = stored.map((r) => runView(r, sums.get(r.id)));
  return applyList(runs, query, {
    sortable: ['createdAt', 'name', 'status', 'startedAt', 'finishedAt', 'versionId', 'productId'],
    filters: [
      ...anyOf<Run>(query.productIds, (r) => r.productId),
      ...anyOf<Run>(query.versionIds, (r) => r.versionId),
      ...intersects<Run>(query.testIds, (r) => r.testIds),
      ...anyOf<Run>(query.statuses, (r) => r.status),
    ],
  });
}

/**
 * POST /runs/{id}/cancel: the run becomes CANCELLED, and its counter shards with it, in one
 * transaction: a fixed few writes however many sessions the run has. From then on no session
 * starts a call (a step reads its shard just before a first call); the cancel job fails the sessions
 * with no turn recorded yet (stoppingReason "cancelled"), a page at a time, and the run shows them
 * failed at once; a session in the middle of a conversation stops after its current call (its next
 * job sees the run cancelled). A finished run is a 409.
 */
export async function cancelRun(auth: AuthContext, id: string): Promise<Run> {
  const run = await getStoredRun(auth.organizationId, id);
  const conflict = (status: RunStatus) =>
    new ConflictError(`run ${id} is ${status}; only PENDING or RUNNING runs can be cancelled`);
  if (FINISHED_RUN_STATUSES.includes(run.status)) throw conflict(run.status);
  const now = clock.now().toISOString();
  const shards = run._shards ? shardKeys(id, run._shards).map((_, k) => shardCancel(id, k)) : [];
  const set = { status: 'CANCELLED' as const, finishedAt: now };
  if (!(await setRunStatus(auth.organizationId, id, ['PENDING', 'RUNNING'], set, undefined, shards)))
    throw conflict((await getStoredRun(auth.organizationId, id)).status);
  await enqueueRunJobs([{ kind: 'cancel', organizationId: auth.organizationId, runId: id }]);
  return getRunFor(auth, id);
}
