import type { AuthContext } from '../../auth/context.js';
import { getRecord, listProductRecords } from '../../db/catalog.js';
import { getVisibleMetric, listSpecLinks } from '../../db/metrics.js';
import { RUN_SHARDS, shardCancel, shardKeys } from '../../db/run-counters.js';
import {
  createRun,
  getRunWithShards,
  getStoredRun,
  listStoredRuns,
  setRunStatus,
  shardsOfRuns,
  testCasesById,
  type MetricStat,
  type RunPlanEntry,
  type StoredRun,
} from '../../db/runs.js';
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
  type RunStatus,
} from '../../schemas/runs.js';
import { enqueueRunJobs } from '../../queue/run-queue.js';
import { clock } from '../common/clock.js';
import { phoneConnectionEntity, specificationEntity, testEntity, versionEntity } from '../common/entities.js';
import type { PhoneConnection } from '../../schemas/phone-connections.js';
import { telephonyConfigured } from '../../telephony/telephony.js';
import { newId } from '../common/ids.js';
import { anyOf, applyList, intersects, type Page } from '../common/list.js';
import { bodyReference } from '../common/references.js';
import { metricFor } from '../evaluation/evaluations.js';
import { runView } from './run-view.js';
import type { Specification } from '../../schemas/specifications.js';
import type { TestRecord } from '../../schemas/tests.js';

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
  if (input.bargeInAfterMs !== undefined && channel !== 'PHONE')
    throw new ValidationError(
      `bargeInAfterMs: barge-in interrupts a voice agent on the phone; this run's channel is ${channel} (set channel PHONE, or leave bargeInAfterMs out)`,
    );
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
    ...(input.bargeInAfterMs !== undefined ? { bargeInAfterMs: input.bargeInAfterMs } : {}),
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
