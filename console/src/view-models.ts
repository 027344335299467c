/**
 * Typed views of the API's answers and the pure rules of the pages (routes, chart series, span
 * tree, run results, comparison plot, formatting). No DOM here, so the unit tests run them under Node.
 *
 * The API's records are the types `npm run openapi` generates from the route table's schemas
 * (./api/schema.d.ts): a named schema by its name (`Schema<'Run'>`), an answer the document does
 * not name by its operation (`Answer<'monitorsAlerts'>`), a part by indexed access. None is written
 * here by hand (test/unit/architecture.test.ts checks it). The client reads answers as unknown;
 * each `as…` helper checks the fields a page relies on and names what is missing.
 */

import type { Answer, Body, Schema } from './api/client.js';

// ---------- the API's records ----------

export type Monitor = Schema<'Monitor'>;
export type MonitorStatus = Monitor['status'];
export type MonitorResults = Schema<'MonitorResults'>;
/** One metric family of a monitor's results: its headline and its buckets. */
export type ResultsFamily = MonitorResults['metrics'][number];
/** A monitor score point: a family's headline (a bucket adds its day). */
export type ScorePoint = ResultsFamily['headline'];
/** A 95% interval of a score. */
export type Interval = NonNullable<ScorePoint['confidenceInterval']>;

export type Run = Schema<'Run'>;
export type RunStatus = Run['status'];
export type RunMetric = Run['metrics'][number];
/** `GET /runs/{id}` only: a metric's score corrected with sampled human labels (PPI++). */
export type CorrectedScore = NonNullable<RunMetric['corrected']>;
/** The body of `POST /runs`. */
export type StartRunBody = Body<'runsCreate'>;

export type Session = Schema<'Session'>;
/** A turn of a session: the API's inference result. */
export type Turn = Schema<'InferenceResult'>;
export type Span = Schema<'Span'>;
export type Evaluation = Schema<'Evaluation'>;
export type TestCase = Schema<'TestCase'>;
export type Version = Schema<'Version'>;
export type Test = Schema<'Test'>;
export type Metric = Schema<'Metric'>;
/** An endpoint connection (a version's CONVERSATION connection is chosen among them). */
export type Connection = Schema<'EndpointConnection'>;
/** A record the pages show by name (product, version, test): the part of it they read. */
export type Named = Pick<Schema<'Product'> | Version | Test, 'id' | 'name'>;

/** A monitor's alert (`GET /monitors/{id}/alerts`). */
export type Alert = Answer<'monitorsAlerts'>[number];
/** A monitor's alert rule (`GET /monitors/{id}/alertRules`). */
export type AlertRule = Answer<'alertRulesList'>[number];
export type AlertWindow = AlertRule['window'];

/** `GET /runs/{id}/comparison`. */
export type RunComparison = Schema<'RunComparison'>;
/** One metric of a comparison; its interval is the pair [lower, upper]. */
export type MetricComparison = RunComparison['metrics'][number];
export type Verdict = RunComparison['verdict'];
/** One test case and metric of `GET /runs/{id}/comparison/cases`. */
export type CaseComparison = Schema<'ComparisonCase'>;

/** Human review: the review bodies are inline in their operations, so each is read from its route's answer. */
export type ReviewQueue = Answer<'reviewQueuesGet'>;
export type ReviewItem = Answer<'reviewQueuesLabel'>;
export type ReviewItemsAdded = Answer<'reviewQueuesAddItems', 201>;
export type ReviewTask = Answer<'reviewQueuesNext'>;
export type Agreement = Answer<'metricsAgreement'>;
export type AgreementVerdict = Agreement['verdict'];
/** The body of `PUT /reviewQueues/{id}/items/{itemId}/labels`. */
export type LabelsBody = Body<'reviewQueuesLabel'>;

/** The answer did not have the shape the page needs (a server bug or a version mismatch). */
export class UnexpectedAnswerError extends Error {}

function narrow<T>(kind: string, required: readonly string[]) {
  return (value: unknown): T => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new UnexpectedAnswerError(`expected a ${kind} object`);
    const missing = required.filter((k) => !(k in value));
    if (missing.length) throw new UnexpectedAnswerError(`the ${kind} answer lacks ${missing.join(', ')}`);
    return value as T;
  };
}

export const asMonitorResults = narrow<MonitorResults>('monitor results', [
  'monitorId',
  'range',
  'metrics',
  'worstMetric',
  'markers',
  'spend',
  'sessions',
]);
export const asMonitor = narrow<Monitor>('monitor', ['id', 'name', 'status', 'samplingPercentage', 'monthlyCreditCap']);
export const asRun = narrow<Run>('run', ['id', 'name', 'status', 'progress', 'metrics']);
export const asSession = narrow<Session>('session', ['id', 'status', 'versionId', 'isProduction']);
export const asTurn = narrow<Turn>('turn', ['id', 'index', 'input', 'output']);
export const asSpan = narrow<Span>('span', ['id', 'name', 'type', 'parentTraceId']);
export const asEvaluation = narrow<Evaluation>('evaluation', ['id', 'metricId', 'status', 'score', 'reason']);
export const asTestCase = narrow<TestCase>('test case', ['id', 'index', 'input', 'expectedOutput']);
export const asNamed = narrow<Named>('named record', ['id', 'name']);
export const asVersion = narrow<Version>('version', ['id', 'name', 'productId']);
export const asTest = narrow<Test>('test', ['id', 'name', 'productId', 'status']);
export const asConnection = narrow<Connection>('endpoint connection', ['id', 'name', 'productId', 'type']);
export const asAlert = narrow<Alert>('alert', ['id', 'ruleId', 'metricGroupId', 'status', 'score', 'below', 'window']);
export const asAlertRule = narrow<AlertRule>('alert rule', ['id', 'metricGroupId', 'window', 'below', 'minSessions']);
export const asRunComparison = narrow<RunComparison>('comparison', ['runId', 'baseRunId', 'verdict', 'metrics']);
export const asCaseComparison = narrow<CaseComparison>('comparison case', ['testCaseId', 'metricId', 'difference']);
export const asMetric = narrow<Metric>('metric', ['id', 'name', 'source']);
export const asReviewQueue = narrow<ReviewQueue>('review queue', [
  'id',
  'productId',
  'name',
  'metricIds',
  'reviewersPerItem',
  'counts',
]);
export const asReviewItem = narrow<ReviewItem>('review item', ['id', 'sessionId', 'status', 'labels']);
export const asReviewItemsAdded = narrow<ReviewItemsAdded>('review items added', ['added', 'skipped', 'items']);
export const asReviewTask = narrow<ReviewTask>('review task', [
  'queueId',
  'itemId',
  'sessionId',
  'metrics',
  'turns',
  'remaining',
]);
export const asAgreement = narrow<Agreement>('agreement', ['metricId', 'n', 'binary', 'reviewers', 'verdict']);

/** A list answer: every element narrowed. */
export function asList<T>(value: unknown, item: (v: unknown) => T): T[] {
  if (!Array.isArray(value)) throw new UnexpectedAnswerError('expected a list (JSON array)');
  return value.map(item);
}

// ---------- routes (after `#`, so the server needs no fallback) ----------

export const PAGE_SIZE = 25;
export const RESULT_DAYS = [7, 14, 30, 90] as const;

/** The runs list's filters (each an API list parameter: productIds, versionIds, testIds, statuses, name). */
export interface RunFilters {
  productId?: string;
  versionId?: string;
  testId?: string;
  status?: RunStatus;
  /** Part of the name, any case. */
  q?: string;
}

/** The monitors list's filters (productIds, statuses, name). */
export interface MonitorFilters {
  productId?: string;
  status?: MonitorStatus;
  q?: string;
}

/** A results table's order: by one metric's score, lowest first (`asc`) or highest first. */
export interface ResultSort {
  metricId: string;
  dir: 'asc' | 'desc';
}

export type Route =
  | { page: 'monitors'; offset: number; filters?: MonitorFilters }
  | { page: 'monitor'; id: string; days: number }
  | { page: 'runs'; offset: number; filters?: RunFilters }
  | { page: 'run'; id: string; offset: number; notPassed?: boolean; sort?: ResultSort }
  | { page: 'comparison'; id: string; baseRunId: string; metricId: string | null }
  | { page: 'session'; id: string }
  | { page: 'review'; productId: string | null; offset: number }
  | { page: 'reviewQueue'; id: string }
  | { page: 'unknown'; path: string };

export const RUN_STATUSES: readonly RunStatus[] = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'];
export const MONITOR_STATUSES: readonly MonitorStatus[] = ['ACTIVE', 'PAUSED', 'CAPPED', 'NO_CREDITS', 'FAILING'];

/** The filters named in the query (`product`, `version`, `test`, `status`, `q`), or undefined for none. */
function filtersOf<F extends object>(
  params: URLSearchParams,
  names: Record<string, keyof F>,
  statuses: readonly string[],
): F | undefined {
  const out: Record<string, string> = {};
  for (const [param, field] of Object.entries(names)) {
    const value = params.get(param)?.trim();
    if (!value || value.length > 200) continue;
    if (field === 'status' && !statuses.includes(value)) continue;
    out[field as string] = value;
  }
  return Object.keys(out).length ? (out as F) : undefined;
}

const RUN_FILTER_PARAMS: Record<string, keyof RunFilters> = {
  product: 'productId',
  version: 'versionId',
  test: 'testId',
  status: 'status',
  q: 'q',
};
const MONITOR_FILTER_PARAMS: Record<string, keyof MonitorFilters> = { product: 'productId', status: 'status', q: 'q' };

function filterQuery<F extends object>(filters: F | undefined, names: Record<string, keyof F>, offset: number): string {
  const query = new URLSearchParams();
  for (const [param, field] of Object.entries(names)) {
    const value = filters?.[field];
    if (typeof value === 'string' && value) query.set(param, value);
  }
  if (offset) query.set('offset', String(offset));
  const q = query.toString();
  return q ? `?${q}` : '';
}

/** `sort=met_a:asc`, or undefined when it is not one. */
function sortOf(raw: string | null): ResultSort | undefined {
  const match = raw ? /^([A-Za-z0-9_-]{1,64}):(asc|desc)$/.exec(raw) : null;
  return match ? { metricId: match[1]!, dir: match[2] as 'asc' | 'desc' } : undefined;
}

function intParam(params: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const raw = params.get(name);
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const n = Number(raw);
  return n >= min && n <= max ? n : fallback;
}

/**
 * `#/monitors?product=…&status=…&q=…`, `#/monitors/{id}?days=30`,
 * `#/runs?product=…&version=…&test=…&status=…&q=…&offset=25`, `#/runs/{id}?notPassed=1&sort=met_a:asc`,
 * `#/runs/{id}/comparison?base={runId}&metric={metricId}`, `#/sessions/{id}`,
 * `#/review?product={productId}&offset=25`, `#/review/{queueId}`; `` and `#/` open the monitors.
 */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [pathPart = '', queryPart = ''] = raw.split('?', 2);
  const params = new URLSearchParams(queryPart);
  const parts = pathPart
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const offset = intParam(params, 'offset', 0, 1_000_000, 0);
  const [section, id, ...rest] = parts;
  if (rest.length === 0) {
    if (section === undefined || (section === 'monitors' && id === undefined)) {
      const filters = filtersOf<MonitorFilters>(params, MONITOR_FILTER_PARAMS, MONITOR_STATUSES);
      return filters ? { page: 'monitors', offset, filters } : { page: 'monitors', offset };
    }
    if (section === 'monitors' && id) return { page: 'monitor', id, days: intParam(params, 'days', 1, 90, 7) };
    if (section === 'runs' && id === undefined) {
      const filters = filtersOf<RunFilters>(params, RUN_FILTER_PARAMS, RUN_STATUSES);
      return filters ? { page: 'runs', offset, filters } : { page: 'runs', offset };
    }
    if (section === 'runs' && id) {
      const sort = sortOf(params.get('sort'));
      const route = { page: 'run' as const, id, offset, notPassed: params.get('notPassed') === '1' };
      return sort ? { ...route, sort } : route;
    }
    if (section === 'sessions' && id) return { page: 'session', id };
    if (section === 'review' && id === undefined)
      return { page: 'review', productId: params.get('product') || null, offset };
    if (section === 'review' && id) return { page: 'reviewQueue', id };
  }
  const baseRunId = params.get('base');
  if (section === 'runs' && id && rest.length === 1 && rest[0] === 'comparison' && baseRunId)
    return { page: 'comparison', id, baseRunId, metricId: params.get('metric') || null };
  return { page: 'unknown', path: pathPart || '/' };
}

export function href(route: Exclude<Route, { page: 'unknown' }>): string {
  const id = (x: string) => encodeURIComponent(x);
  switch (route.page) {
    case 'monitors':
      return `#/monitors${filterQuery(route.filters, MONITOR_FILTER_PARAMS, route.offset)}`;
    case 'monitor':
      return route.days === 7 ? `#/monitors/${id(route.id)}` : `#/monitors/${id(route.id)}?days=${route.days}`;
    case 'runs':
      return `#/runs${filterQuery(route.filters, RUN_FILTER_PARAMS, route.offset)}`;
    case 'run': {
      const query = new URLSearchParams();
      if (route.offset) query.set('offset', String(route.offset));
      if (route.notPassed) query.set('notPassed', '1');
      if (route.sort) query.set('sort', `${route.sort.metricId}:${route.sort.dir}`);
      const q = query.toString();
      return q ? `#/runs/${id(route.id)}?${q}` : `#/runs/${id(route.id)}`;
    }
    case 'comparison': {
      const query = new URLSearchParams({ base: route.baseRunId });
      if (route.metricId) query.set('metric', route.metricId);
      return `#/runs/${id(route.id)}/comparison?${query}`;
    }
    case 'session':
      return `#/sessions/${id(route.id)}`;
    case 'review': {
      const query = new URLSearchParams();
      if (route.productId) query.set('product', route.productId);
      if (route.offset) query.set('offset', String(route.offset));
      const q = query.toString();
      return q ? `#/review?${q}` : '#/review';
    }
    case 'reviewQueue':
      return `#/review/${id(route.id)}`;
  }
}

// ---------- monitor results ----------

/** The series of one family's chart: x in epoch seconds (uPlot's unit), one value per bucket. */
export interface FamilySeries {
  x: number[];
  score: (number | null)[];
  lower: (number | null)[];
  upper: (number | null)[];
  /** The score where the bucket is still collecting data (fewer than 30 sessions), else null. */
  collecting: (number | null)[];
}

export function familySeries(family: ResultsFamily): FamilySeries {
  const buckets = family.buckets;
  return {
    x: buckets.map((b) => Date.parse(b.bucket) / 1000),
    score: buckets.map((b) => b.score),
    lower: buckets.map((b) => b.confidenceInterval?.lower ?? null),
    upper: buckets.map((b) => b.confidenceInterval?.upper ?? null),
    collecting: buckets.map((b) => (b.collectingData && b.score !== null ? b.score : null)),
  };
}

export interface Marker {
  kind: 'revision' | 'sampling';
  /** Epoch seconds. */
  at: number;
  label: string;
}

/** Revision markers of one family and every sampling change, oldest first. */
export function familyMarkers(results: MonitorResults, metricGroupId: string): Marker[] {
  const revisions = results.markers.metricRevisions
    .filter((m) => m.metricGroupId === metricGroupId)
    .map(
      (m): Marker => ({
        kind: 'revision',
        at: Date.parse(m.at) / 1000,
        label: `new revision ${m.metricId} of ${m.name}`,
      }),
    );
  const sampling = results.markers.samplingChanges.map(
    (s): Marker => ({
      kind: 'sampling',
      at: Date.parse(s.at) / 1000,
      label: `sampling set to ${formatPercent(s.samplingPercentage)}`,
    }),
  );
  return [...revisions, ...sampling].sort((a, b) => a.at - b.at);
}

/** What a monitor's spend text and bar read of its results' spend. */
type Spend = Pick<MonitorResults['spend'], 'spentCredits' | 'pendingCredits' | 'capCredits'>;

/** "12 of 100 credits (3 pending)", or "12 credits, no cap" when uncapped. */
export function spendText(spend: Spend): string {
  const pending = spend.pendingCredits ? ` (${spend.pendingCredits} pending)` : '';
  return spend.capCredits === null
    ? `${spend.spentCredits} credits${pending}, no cap`
    : `${spend.spentCredits} of ${spend.capCredits} credits${pending}`;
}

/** Share of the cap used (spent + pending), 0–1, or null when uncapped. */
export function spendShare(spend: Spend): number | null {
  if (spend.capCredits === null || spend.capCredits <= 0) return null;
  return Math.min(1, (spend.spentCredits + spend.pendingCredits) / spend.capCredits);
}

// ---------- runs ----------

export function isRunActive(run: Pick<Run, 'status'>): boolean {
  return run.status === 'PENDING' || run.status === 'RUNNING';
}

/** Finished sessions over all sessions, 0–1 (0 for an empty run). */
export function runDone(run: Pick<Run, 'progress'>): number {
  const { total, completed, failed } = run.progress;
  return total === 0 ? 0 : (completed + failed) / total;
}

/** A run metric as a list shows it. */
export type MetricSummary = Pick<RunMetric, 'metricId' | 'name' | 'score' | 'passRate'>;

/** A run's metrics for a list: the first `shown` (in the run's order) and how many more there are. */
export function runScoreSummary(run: Pick<Run, 'metrics'>, shown = 3): { items: MetricSummary[]; more: number } {
  return {
    items: run.metrics.slice(0, shown).map((m) => ({
      metricId: m.metricId,
      name: m.name,
      score: m.score,
      passRate: m.passRate,
    })),
    more: Math.max(0, run.metrics.length - shown),
  };
}

/** `86%` (rounded to a whole percent; `< 1%` and `> 99%` near the ends), or `—`. */
export function formatPassRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || Number.isNaN(rate)) return '—';
  const pct = rate * 100;
  if (pct > 0 && pct < 0.5) return '< 1%';
  if (pct < 100 && pct >= 99.5) return '> 99%';
  return `${Math.round(pct)}%`;
}

/** id → name of records (the lists the pages read once). */
export function namesById(records: Named[]): Map<string, string> {
  return new Map(records.map((r) => [r.id, r.name]));
}

/** A run's tests by name, each id its own name when it is not known. */
export function testNames(run: Pick<Run, 'testIds'>, names: Map<string, string>): string[] {
  return run.testIds.map((id) => names.get(id) ?? id);
}

/** A metric family's name: its live revision's, else any revision's (a family renamed keeps its newest name). */
export function familyNames(metrics: Pick<Metric, 'metricGroupId' | 'name' | 'legacyAt'>[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of metrics) if (m.legacyAt === null || !out.has(m.metricGroupId)) out.set(m.metricGroupId, m.name);
  return out;
}

/** The versions a run can start on: those with a CONVERSATION endpoint connection or a phone connection. */
export function runnableVersions<V extends Pick<Version, 'conversationEndpointConnectionId' | 'phoneConnectionId'>>(
  versions: V[],
): V[] {
  return versions.filter((v) => v.conversationEndpointConnectionId || v.phoneConnectionId);
}

/** The tests a version's run may take: its product's SUCCESS tests with at least one case. */
export function runnableTests<T extends Pick<Test, 'productId' | 'status' | 'testCaseCount'>>(
  tests: T[],
  productId: string,
): T[] {
  return tests.filter((t) => t.productId === productId && t.status === 'SUCCESS' && t.testCaseCount > 0);
}

/** The most repetitions a run takes (the API's bound). */
export const MAX_REPETITIONS = 10;

export interface StartRunInput {
  versionId: string;
  testId: string;
  metricIds: string[];
  repetitions: string;
  name: string;
}

/**
 * The body of `POST /runs` from the start form, or what to fix. No metric picked sends none: the
 * test's linked metrics score it (and the API says so when it has none).
 */
export function startRunBody(input: StartRunInput): { body: StartRunBody } | { error: string } {
  if (!input.versionId) return { error: 'Pick a version (one with an endpoint connection).' };
  if (!input.testId) return { error: 'Pick a test of the version’s product.' };
  const repetitions = Number(input.repetitions);
  if (!/^\d+$/.test(input.repetitions.trim()) || repetitions < 1 || repetitions > MAX_REPETITIONS)
    return { error: `Repetitions is a whole number from 1 to ${MAX_REPETITIONS}.` };
  if (input.metricIds.length > 50) return { error: `Pick at most 50 metrics (${input.metricIds.length} picked).` };
  const name = input.name.trim();
  if (name.length > 200) return { error: 'A name has at most 200 characters.' };
  return {
    body: {
      versionId: input.versionId,
      testId: input.testId,
      ...(input.metricIds.length ? { metricIds: input.metricIds } : {}),
      repetitions,
      ...(name ? { name } : {}),
    },
  };
}

// ---------- run results ----------

/** true/false for a SUCCESS evaluation at/below the threshold; null when it has no score (pending, failed, skipped). */
export function evaluationPassed(e: Pick<Evaluation, 'status' | 'score'>, threshold: number): boolean | null {
  if (e.status !== 'SUCCESS' || e.score === null) return null;
  return e.score >= threshold;
}

/** A case did not pass when any SUCCESS evaluation of its session scored below the threshold. */
export function didNotPass(evaluations: Pick<Evaluation, 'status' | 'score'>[], threshold: number): boolean {
  return evaluations.some((e) => evaluationPassed(e, threshold) === false);
}

/** The sessions (ids) whose case did not pass, in the order given. */
export function notPassedSessionIds(sessionIds: string[], evaluations: Evaluation[], threshold: number): string[] {
  const failing = new Set(evaluations.filter((e) => evaluationPassed(e, threshold) === false).map((e) => e.sessionId));
  return sessionIds.filter((id) => failing.has(id));
}

export interface ResultColumn {
  metricId: string;
  name: string;
}

/** One column per metric: the run's metrics in its order, then any other metric an evaluation names. */
export function resultColumns(
  run: Pick<Run, 'metricIds' | 'metrics'>,
  evaluations: Pick<Evaluation, 'metricId' | 'metricName'>[],
): ResultColumn[] {
  const names = new Map<string, string>();
  for (const m of run.metrics) names.set(m.metricId, m.name);
  for (const e of evaluations) if (!names.has(e.metricId) && e.metricName) names.set(e.metricId, e.metricName);
  const ids = [...run.metrics.map((m) => m.metricId), ...run.metricIds, ...evaluations.map((e) => e.metricId)];
  return [...new Set(ids)].map((metricId) => ({ metricId, name: names.get(metricId) ?? metricId }));
}

export interface ScoreCell {
  status: Evaluation['status'];
  score: number | null;
  /** The reason of the score, or the error of a failed or skipped evaluation. */
  reason: string | null;
  /** See evaluationPassed. */
  passed: boolean | null;
  /** The turn scored, or null for the whole session. */
  turnIndex: number | null;
}

export interface ResultRow {
  sessionId: string;
  sessionStatus: Session['status'];
  testCaseId: string | null;
  caseIndex: number | null;
  input: string;
  output: string | null;
  expected: string | null;
  turnCount: number;
  /** Per metric id, its evaluations in this session (one per scored turn, or one for the session). */
  scores: Record<string, ScoreCell[]>;
  passed: boolean;
}

/** A case's input as text: the string, an object as JSON, or else the scenario's goal. */
export function caseInputText(input: unknown, fallback: string | null = null): string {
  if (typeof input === 'string') return input;
  if (input !== null && input !== undefined) return JSON.stringify(input);
  return fallback ?? '—';
}

/** The agent's answer: the output of the last turn (null without turns or output). */
export function lastOutput(turns: Pick<Turn, 'index' | 'output'>[]): string | null {
  const last = [...turns].sort((a, b) => a.index - b.index).at(-1);
  return last?.output ?? null;
}

/** One row per session: its case's input and expected output, the agent's output and each metric's scores. */
export function resultRows(
  sessions: Session[],
  testCases: TestCase[],
  turns: Turn[],
  evaluations: Evaluation[],
  threshold: number,
): ResultRow[] {
  const cases = new Map(testCases.map((c) => [c.id, c]));
  const turnsOf = new Map<string, Turn[]>();
  for (const t of turns) turnsOf.set(t.sessionId, [...(turnsOf.get(t.sessionId) ?? []), t]);
  const turnIndex = new Map(turns.map((t) => [t.id, t.index]));
  const evaluationsOf = new Map<string, Evaluation[]>();
  for (const e of evaluations) evaluationsOf.set(e.sessionId, [...(evaluationsOf.get(e.sessionId) ?? []), e]);
  return sessions.map((session) => {
    const own = turnsOf.get(session.id) ?? [];
    const sorted = [...own].sort((a, b) => a.index - b.index);
    const testCase = session.testCaseId ? cases.get(session.testCaseId) : undefined;
    const evals = evaluationsOf.get(session.id) ?? [];
    const scores: Record<string, ScoreCell[]> = {};
    for (const e of evals) {
      (scores[e.metricId] ??= []).push({
        status: e.status,
        score: e.score,
        reason: e.status === 'SUCCESS' ? e.reason : (e.error ?? e.reason),
        passed: evaluationPassed(e, threshold),
        turnIndex: e.inferenceResultId ? (turnIndex.get(e.inferenceResultId) ?? null) : null,
      });
    }
    for (const list of Object.values(scores)) list.sort((a, b) => (a.turnIndex ?? -1) - (b.turnIndex ?? -1));
    return {
      sessionId: session.id,
      sessionStatus: session.status,
      testCaseId: session.testCaseId,
      caseIndex: testCase?.index ?? null,
      input: caseInputText(testCase?.input ?? null, testCase?.goal ?? sorted[0]?.input ?? null),
      output: lastOutput(sorted),
      expected: testCase?.expectedOutput ?? null,
      turnCount: sorted.length,
      scores,
      passed: !didNotPass(evals, threshold),
    };
  });
}

/**
 * Sessions in test-case order: by their case's index (sessions without a known case last), then
 * repetition, then id. The API lists a run's sessions by creation time, the same for every case.
 */
export function inCaseOrder<S extends Pick<Session, 'id' | 'testCaseId' | 'repetition'>>(
  sessions: S[],
  caseIndex: Map<string, number>,
): S[] {
  const index = (s: S) => (s.testCaseId ? (caseIndex.get(s.testCaseId) ?? Infinity) : Infinity);
  return [...sessions].sort(
    (a, b) =>
      index(a) - index(b) || (a.repetition ?? 1) - (b.repetition ?? 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** A session's score on a metric, for ordering: the mean of its SUCCESS scores (a score per turn), or null. */
export function sessionMetricScore(
  evaluations: Pick<Evaluation, 'sessionId' | 'metricId' | 'status' | 'score'>[],
): Map<string, Map<string, number>> {
  const sums = new Map<string, Map<string, [number, number]>>();
  for (const e of evaluations) {
    if (e.status !== 'SUCCESS' || e.score === null) continue;
    const own = sums.get(e.sessionId) ?? new Map<string, [number, number]>();
    sums.set(e.sessionId, own);
    const [sum, n] = own.get(e.metricId) ?? [0, 0];
    own.set(e.metricId, [sum + e.score, n + 1]);
  }
  return new Map(
    [...sums].map(([id, own]) => [id, new Map([...own].map(([m, [sum, n]]) => [m, sum / n] as [string, number]))]),
  );
}

/**
 * Session ids (given in case order) ordered by one metric's score: lowest first (`asc`) or highest
 * first; ties keep the case order, and sessions without a score of it come last either way.
 */
export function sortByMetric(
  sessionIds: string[],
  evaluations: Pick<Evaluation, 'sessionId' | 'metricId' | 'status' | 'score'>[],
  sort: ResultSort,
): string[] {
  const scores = sessionMetricScore(evaluations);
  const sign = sort.dir === 'asc' ? 1 : -1;
  return sessionIds
    .map((id, i) => ({ id, i, score: scores.get(id)?.get(sort.metricId) ?? null }))
    .sort((a, b) => {
      if (a.score === null || b.score === null)
        return (a.score === null ? 1 : 0) - (b.score === null ? 1 : 0) || a.i - b.i;
      return sign * (a.score - b.score) || a.i - b.i;
    })
    .map((x) => x.id);
}

/** What clicking a metric's header does: lowest first, then highest first, then back to case order. */
export function nextSort(current: ResultSort | undefined, metricId: string): ResultSort | undefined {
  if (current?.metricId !== metricId) return { metricId, dir: 'asc' };
  return current.dir === 'asc' ? { metricId, dir: 'desc' } : undefined;
}

/** The `aria-sort` of a metric's header. */
export function ariaSort(current: ResultSort | undefined, metricId: string): 'ascending' | 'descending' | 'none' {
  if (current?.metricId !== metricId) return 'none';
  return current.dir === 'asc' ? 'ascending' : 'descending';
}

/** The metrics a row did not pass, by name, with the lowest score below the threshold each gave. */
export function notPassedMetrics(
  row: Pick<ResultRow, 'scores'>,
  columns: ResultColumn[],
): { name: string; score: number }[] {
  return columns.flatMap((c) => {
    const failing = (row.scores[c.metricId] ?? []).filter((cell) => cell.passed === false && cell.score !== null);
    if (failing.length === 0) return [];
    return [{ name: c.name, score: Math.min(...failing.map((cell) => cell.score!)) }];
  });
}

// ---------- word diff ----------

export interface DiffPart {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Words with the white space after each (the first part keeps any leading white space). */
function words(text: string): string[] {
  const out = text.match(/\s*\S+\s*/g) ?? [];
  if (out.length === 0 && text) return [text];
  return out;
}

const wordOf = (token: string) => token.trim();

function pushPart(parts: DiffPart[], kind: DiffPart['kind'], text: string): void {
  if (!text) return;
  const last = parts.at(-1);
  if (last?.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/**
 * A word diff of two texts (white space ignored in comparing): the words both have (`same`, in
 * `after`'s spacing), those only `before` has (`removed`) and only `after` has (`added`), in
 * reading order, removals before additions. A longest common subsequence of the words between
 * the common start and end; past `maxCells` word pairs the middle is one removal and one addition.
 */
export function wordDiff(before: string, after: string, maxCells = 1_000_000): DiffPart[] {
  const a = words(before);
  const b = words(after);
  let start = 0;
  while (start < a.length && start < b.length && wordOf(a[start]!) === wordOf(b[start]!)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && wordOf(a[endA - 1]!) === wordOf(b[endB - 1]!)) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  pushPart(parts, 'same', b.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if (n * m > maxCells) {
    pushPart(parts, 'removed', midA.join(''));
    pushPart(parts, 'added', midB.join(''));
  } else {
    // lcs[i][j]: the longest common subsequence of midA[i..] and midB[j..]
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i]![j] =
          wordOf(midA[i]!) === wordOf(midB[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && wordOf(midA[i]!) === wordOf(midB[j]!)) {
        pushPart(parts, 'same', midB[j]!);
        i++;
        j++;
      } else if (j >= m || (i < n && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        pushPart(parts, 'removed', midA[i++]!);
      } else {
        pushPart(parts, 'added', midB[j++]!);
      }
    }
  }
  pushPart(parts, 'same', b.slice(endB).join(''));
  return parts;
}

// ---------- span tree ----------

export interface SpanNode {
  span: Span;
  depth: number;
  /** Milliseconds from the first span's start (null when the span has no start time). */
  offsetMs: number | null;
  /** endTime − startTime, else latencyMs, else null. */
  durationMs: number | null;
  children: SpanNode[];
}

function spanStart(s: Span): number | null {
  const t = s.startTime ? Date.parse(s.startTime) : NaN;
  return Number.isNaN(t) ? null : t;
}

function spanDuration(s: Span): number | null {
  const start = spanStart(s);
  const end = s.endTime ? Date.parse(s.endTime) : NaN;
  if (start !== null && !Number.isNaN(end) && end >= start) return end - start;
  return s.latencyMs;
}

/**
 * Spans as a forest: a span whose parent is absent (or would close a cycle) is a root; siblings
 * by start time, then creation. Also returns the whole tree's span in ms (for timing bars).
 */
export function spanTree(spans: Span[]): { roots: SpanNode[]; totalMs: number } {
  const starts = spans.map(spanStart).filter((t): t is number => t !== null);
  const origin = starts.length ? Math.min(...starts) : 0;
  const nodes = new Map<string, SpanNode>();
  for (const span of spans) {
    const start = spanStart(span);
    nodes.set(span.id, {
      span,
      depth: 0,
      offsetMs: start === null ? null : start - origin,
      durationMs: spanDuration(span),
      children: [],
    });
  }
  const parentOf = (id: string) => nodes.get(id)?.span.parentTraceId ?? null;
  const closesCycle = (id: string) => {
    const seen = new Set<string>([id]);
    for (let p = parentOf(id); p !== null && nodes.has(p); p = parentOf(p)) {
      if (seen.has(p)) return true;
      seen.add(p);
    }
    return false;
  };
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentTraceId ? nodes.get(node.span.parentTraceId) : undefined;
    if (parent && parent !== node && !closesCycle(node.span.id)) parent.children.push(node);
    else roots.push(node);
  }
  const order = (a: SpanNode, b: SpanNode) =>
    (a.offsetMs ?? Infinity) - (b.offsetMs ?? Infinity) ||
    a.span.createdAt.localeCompare(b.span.createdAt) ||
    a.span.id.localeCompare(b.span.id);
  let totalMs = 0;
  const walk = (list: SpanNode[], depth: number) => {
    list.sort(order);
    for (const n of list) {
      n.depth = depth;
      if (n.offsetMs !== null) totalMs = Math.max(totalMs, n.offsetMs + (n.durationMs ?? 0));
      walk(n.children, depth + 1);
    }
  };
  walk(roots, 0);
  return { roots, totalMs };
}

// ---------- run comparison ----------

export const VERDICT_LABELS: Record<Verdict, string> = {
  improved: 'Improved',
  regressed: 'Regressed',
  no_significant_change: 'No significant change',
  not_enough_data: 'Not enough data',
};

export function verdictLabel(verdict: string): string {
  return VERDICT_LABELS[verdict as Verdict] ?? verdict;
}

/** A signed difference: `+0.120`, `−0.150` (a minus sign), `0.000`, or `—`. */
export function formatDifference(d: number | null, digits = 3): string {
  if (d === null || Number.isNaN(d)) return '—';
  const text = Math.abs(d).toFixed(digits);
  if (Number(text) === 0) return (0).toFixed(digits);
  return `${d > 0 ? '+' : '−'}${text}`;
}

/** A comparison's interval as its two ends (the API answers it as the list [lower, upper]), or null without one. */
export function differenceInterval(ci: MetricComparison['confidenceInterval']): [number, number] | null {
  const [lower, upper] = ci ?? [];
  return lower === undefined || upper === undefined ? null : [lower, upper];
}

export function formatDifferenceInterval(ci: MetricComparison['confidenceInterval']): string {
  const ends = differenceInterval(ci);
  return ends === null ? 'not enough pairs' : `${formatDifference(ends[0])} to ${formatDifference(ends[1])}`;
}

/** `0.023`, `< 0.001`, or `—`. */
export function formatPValue(p: number | null): string {
  if (p === null) return '—';
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

export interface ForestLayout {
  width: number;
  /** Room on the left for the metric names. */
  labelWidth: number;
  rightPadding: number;
  top: number;
  rowHeight: number;
  /** Room below the rows for the axis labels. */
  axisHeight: number;
}

export const FOREST_LAYOUT: ForestLayout = {
  width: 640,
  labelWidth: 180,
  rightPadding: 24,
  top: 12,
  rowHeight: 36,
  axisHeight: 32,
};

/** The layout at a drawing width: less room for the names under 480 px. */
export function forestLayout(width: number): ForestLayout {
  return { ...FOREST_LAYOUT, width, labelWidth: width < 480 ? 120 : FOREST_LAYOUT.labelWidth };
}

export interface ForestRow {
  metricId: string;
  name: string;
  verdict: Verdict;
  /** Centre of the row. */
  y: number;
  /** The difference, or null when there is none. */
  dotX: number | null;
  /** The 95% interval's ends, or null without an interval. */
  x1: number | null;
  x2: number | null;
}

export interface ForestPlot {
  width: number;
  height: number;
  plotLeft: number;
  plotRight: number;
  /** The differences the x axis spans (0 always inside). */
  domain: [number, number];
  zeroX: number;
  /** Where the rows end and the axis labels start. */
  axisY: number;
  ticks: { value: number; x: number; label: string }[];
  rows: ForestRow[];
}

const TICK_STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1];

/**
 * The decimals a label needs to write every multiple of `step` exactly (0.25 → 2, 0.5 → 1,
 * 0.05 → 2, 1 → 0), at least `min`: a gridline at −0.75 reads "−0.75", never "−0.8".
 */
export function stepDecimals(step: number, min = 0): number {
  for (let d = 0; d <= 6; d++) {
    const scaled = Math.abs(step) * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6) return Math.max(min, d);
  }
  return Math.max(min, 6);
}

/** Labels of an axis's gridlines: as many decimals as their step needs (at least one). */
export function axisLabels(splits: number[]): string[] {
  let step = Infinity;
  for (let i = 1; i < splits.length; i++) {
    const gap = Math.abs(splits[i]! - splits[i - 1]!);
    if (gap > 1e-12) step = Math.min(step, gap);
  }
  const digits = Number.isFinite(step)
    ? Math.max(
        stepDecimals(Number(step.toPrecision(6)), 1),
        ...splits.map((v) => stepDecimals(Number(v.toPrecision(6)), 1)),
      )
    : 1;
  return splits.map((v) => {
    const text = v.toFixed(Math.min(digits, 6));
    return Number(text) === 0 ? (0).toFixed(Math.min(digits, 6)) : text;
  });
}

/**
 * The forest plot's geometry: one row per metric with its difference as a dot and its 95%
 * interval as a line, over a linear scale from the smallest to the largest of the intervals, the
 * differences and 0 (padded by 5% of that span each side), with a zero line.
 */
export function forestPlot(metrics: MetricComparison[], layout: ForestLayout = FOREST_LAYOUT): ForestPlot {
  const values = [0];
  for (const m of metrics) {
    values.push(...(differenceInterval(m.confidenceInterval) ?? []));
    if (m.difference !== null) values.push(m.difference);
  }
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 1e-9) {
    lo = -0.1;
    hi = 0.1;
  }
  const pad = (hi - lo) * 0.05;
  const domain: [number, number] = [lo - pad, hi + pad];
  const plotLeft = layout.labelWidth;
  const plotRight = layout.width - layout.rightPadding;
  const x = (v: number) => plotLeft + ((v - domain[0]) / (domain[1] - domain[0])) * (plotRight - plotLeft);
  const span = domain[1] - domain[0];
  const step = TICK_STEPS.find((s) => span / s <= 6) ?? 1;
  const ticks: ForestPlot['ticks'] = [];
  for (let k = Math.ceil(domain[0] / step - 1e-9); k * step <= domain[1] + 1e-9; k++) {
    const value = Number((k * step).toFixed(6));
    ticks.push({ value, x: x(value), label: value === 0 ? '0' : formatDifference(value, stepDecimals(step, 1)) });
  }
  const rows = metrics.map((m, i): ForestRow => {
    const ends = differenceInterval(m.confidenceInterval);
    return {
      metricId: m.metricId,
      name: m.name,
      verdict: m.verdict,
      y: layout.top + i * layout.rowHeight + layout.rowHeight / 2,
      dotX: m.difference === null ? null : x(m.difference),
      x1: ends ? x(ends[0]) : null,
      x2: ends ? x(ends[1]) : null,
    };
  });
  return {
    width: layout.width,
    height: layout.top + metrics.length * layout.rowHeight + layout.axisHeight,
    plotLeft,
    plotRight,
    domain,
    zeroX: x(0),
    axisY: layout.top + metrics.length * layout.rowHeight,
    ticks,
    rows,
  };
}

/** One sentence per metric, for screen readers and the plot's text alternative. */
export function comparisonSentence(m: MetricComparison): string {
  return `${m.name}: ${verdictLabel(m.verdict).toLowerCase()}, difference ${formatDifference(m.difference)}, 95% interval ${formatDifferenceInterval(m.confidenceInterval)}, n = ${m.n}`;
}

/**
 * The cases that moved most: the most regressed and the most improved pages merged, each case
 * and metric once, by |difference| largest first (ties: regressions first, then test case id).
 */
export function movedMost(regressed: CaseComparison[], improved: CaseComparison[], limit: number): CaseComparison[] {
  const seen = new Map<string, CaseComparison>();
  for (const c of [...regressed, ...improved]) {
    if (c.difference === 0) continue;
    seen.set(`${c.testCaseId}\u0000${c.metricId}`, c);
  }
  return [...seen.values()]
    .sort(
      (a, b) =>
        Math.abs(b.difference) - Math.abs(a.difference) ||
        a.difference - b.difference ||
        a.testCaseId.localeCompare(b.testCaseId) ||
        a.metricId.localeCompare(b.metricId),
    )
    .slice(0, limit);
}

// ---------- monitor alerts and session scores ----------

/** The name of a monitor's family, else the id. */
export function familyName(results: Pick<MonitorResults, 'metrics'>, metricGroupId: string): string {
  return results.metrics.find((m) => m.metricGroupId === metricGroupId)?.name ?? metricGroupId;
}

/** `below 0.700 over 1h, from 20 sessions` */
export function alertRuleText(rule: Pick<AlertRule, 'below' | 'window' | 'minSessions' | 'confidence'>): string {
  const sessions = `from ${rule.minSessions} session${rule.minSessions === 1 ? '' : 's'}`;
  if (rule.confidence === 'interval')
    return `95% interval wholly below ${formatScore(rule.below)} over ${rule.window}, ${sessions} (and at least 30)`;
  return `score below ${formatScore(rule.below)} over ${rule.window}, ${sessions}`;
}

/** Per session, per metric family, the monitor's evaluations of it (other monitors' left out). */
export function sessionScores(evaluations: Evaluation[], monitorId: string): Map<string, Map<string, ScoreCell[]>> {
  const out = new Map<string, Map<string, ScoreCell[]>>();
  for (const e of evaluations) {
    if (e.monitorId !== monitorId) continue;
    const family = e.metricGroupId;
    const bySession = out.get(e.sessionId) ?? new Map<string, ScoreCell[]>();
    out.set(e.sessionId, bySession);
    const cell: ScoreCell = {
      status: e.status,
      score: e.humanScore ?? e.score,
      reason: e.status === 'SUCCESS' ? (e.humanReason ?? e.reason) : (e.error ?? e.reason),
      passed: null,
      turnIndex: null,
    };
    bySession.set(family, [...(bySession.get(family) ?? []), cell]);
  }
  return out;
}

// ---------- human review ----------

/** The name a reviewer gives (trimmed, 1–128 characters, not blank), or null when it is not one. */
export function reviewerName(raw: string): string | null {
  const name = raw.trim();
  return name.length >= 1 && name.length <= 128 ? name : null;
}

/** A queue's progress: the share of its items DONE (0 without items) and the sentence. */
export function queueProgress(counts: ReviewQueue['counts']): { share: number; text: string } {
  if (counts.items === 0) return { share: 0, text: 'no items yet' };
  return {
    share: counts.done / counts.items,
    text: `${counts.done} of ${counts.items} done (${counts.pending} pending)`,
  };
}

/** What is left for this reviewer: `12 left`, `1 left`, `nothing left`. */
export function remainingText(remaining: number): string {
  return remaining <= 0 ? 'nothing left' : `${remaining} left`;
}

/** A label's score as words: `pass (1)`, `fail (0)`, `0.70`, or `not labelled yet`. */
export function formatLabelScore(score: number | null): string {
  if (score === null) return 'not labelled yet';
  if (score === 1) return 'pass (1)';
  if (score === 0) return 'fail (0)';
  return score.toFixed(2);
}

export interface LabelDraft {
  metricId: string;
  name: string;
  description: string;
  /** 0–1, or null until the reviewer gives one. */
  score: number | null;
  reason: string;
}

/** The labels of one item being given: one draft per metric, and the metric the keys act on. */
export interface LabelState {
  drafts: LabelDraft[];
  current: number;
}

export function newLabelState(task: Pick<ReviewTask, 'metrics'>): LabelState {
  return {
    drafts: task.metrics.map((m) => ({
      metricId: m.id,
      name: m.name,
      description: m.description,
      score: null,
      reason: '',
    })),
    current: 0,
  };
}

/** Sets one metric's score (the slider: the current metric stays). */
export function setLabelScore(state: LabelState, index: number, score: number): LabelState {
  if (index < 0 || index >= state.drafts.length) return state;
  const clamped = Math.min(1, Math.max(0, score));
  return { ...state, drafts: state.drafts.map((d, i) => (i === index ? { ...d, score: clamped } : d)), current: index };
}

/** Pass (1) or fail (0) for one metric, then the next metric is the current one (the last stays). */
export function decideLabel(state: LabelState, index: number, score: 0 | 1): LabelState {
  const next = setLabelScore(state, index, score);
  return { ...next, current: Math.min(index + 1, state.drafts.length - 1) };
}

export function setLabelReason(state: LabelState, index: number, reason: string): LabelState {
  return { ...state, drafts: state.drafts.map((d, i) => (i === index ? { ...d, reason } : d)) };
}

/** The body's labels (a blank reason is none), or the metrics (indexes) still without a score. */
export function labelsToSubmit(state: LabelState): Pick<LabelsBody, 'labels'> | { missing: number[] } {
  const missing = state.drafts.flatMap((d, i) => (d.score === null ? [i] : []));
  if (missing.length) return { missing };
  return {
    labels: state.drafts.map((d) => ({ metricId: d.metricId, score: d.score!, reason: d.reason.trim() || null })),
  };
}

/**
 * What the element a key was pressed on is: `text` takes typing (a reason box, a name or number
 * field, a select), `button` has its own Enter (a button, a link, a disclosure), `other` is anything else.
 */
export type KeyTarget = 'text' | 'button' | 'other';

export type ReviewShortcut = { action: 'decide'; score: 0 | 1 } | { action: 'submit' } | null;

/**
 * The labelling page's keys: `1` pass and `0` fail (the current metric), `Enter` saves the labels
 * and opens the next item. Nothing while typing (`text`), nor with a modifier, except Ctrl/⌘+Enter
 * which saves from anywhere in the labelling panel, the reason box included. A button keeps its
 * own Enter. Outside the panel (the name form, the sample form, the header) only a key pressed on
 * nothing in particular (`other`: the page's heading, the body) counts.
 */
export function reviewShortcut(
  key: { key: string; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean },
  target: KeyTarget,
  inPanel: boolean,
): ReviewShortcut {
  if (key.key === 'Enter' && (key.ctrlKey || key.metaKey) && !key.altKey) return inPanel ? { action: 'submit' } : null;
  if (key.ctrlKey || key.metaKey || key.altKey) return null;
  if (target === 'text') return null;
  if (!inPanel && target !== 'other') return null;
  if (key.key === '1') return { action: 'decide', score: 1 };
  if (key.key === '0') return { action: 'decide', score: 0 };
  if (key.key === 'Enter' && target === 'other') return { action: 'submit' };
  return null;
}

/** The fewest labelled sessions a verdict other than "not enough data" takes, and the bar it is held to. */
export const CALIBRATION_MIN_N = 30;
export const CALIBRATION_BAR = 0.6;

export const AGREEMENT_VERDICT_LABELS: Record<AgreementVerdict, string> = {
  calibrated: 'Calibrated',
  not_calibrated: 'Not calibrated',
  not_enough_data: 'Not enough data',
};

export function agreementVerdictLabel(verdict: string): string {
  return AGREEMENT_VERDICT_LABELS[verdict as AgreementVerdict] ?? verdict;
}

/** The coefficient the verdict reads: Cohen's κ when every score is 0 or 1, else Spearman's ρ. */
export function agreementCoefficient(a: Agreement): {
  symbol: 'κ' | 'ρ';
  name: string;
  value: number | null;
  interval: Interval | null;
} {
  return a.binary
    ? { symbol: 'κ', name: "Cohen's κ", value: a.kappa, interval: a.kappaInterval }
    : { symbol: 'ρ', name: "Spearman's ρ", value: a.spearman, interval: a.spearmanInterval };
}

/** `0.640 to 0.980`; signed (`−0.020 to +0.100`) for a difference; `no interval` without one. */
export function formatRange(ci: Interval | null, signed = false): string {
  if (ci === null) return 'no interval';
  const f = (v: number) => (signed ? formatDifference(v) : v.toFixed(3));
  return `${f(ci.lower)} to ${f(ci.upper)}`;
}

/** `κ 0.810 (0.640 to 0.980)`, `ρ 0.400 (no interval)`, `ρ —`. */
export function formatCoefficient(a: Agreement): string {
  const c = agreementCoefficient(a);
  if (c.value === null) return `${c.symbol} —`;
  return `${c.symbol} ${c.value.toFixed(3)} (${formatRange(c.interval)})`;
}

/** The judge's mean minus the people's: `+0.040 (−0.020 to +0.100)`, or `—`. */
export function formatBias(a: Pick<Agreement, 'bias' | 'biasInterval'>): string {
  if (a.bias === null) return '—';
  return `${formatDifference(a.bias)} (${formatRange(a.biasInterval, true)})`;
}

/** Krippendorff's α among reviewers: `0.780 over 9 sessions`, or why there is none. */
export function formatAlpha(r: Agreement['reviewers']): string {
  const sessions = `${r.units} session${r.units === 1 ? '' : 's'}`;
  if (r.alpha !== null) return `${r.alpha.toFixed(3)} over ${sessions}`;
  return r.units === 0 ? '— (no session labelled twice)' : `— (${sessions} labelled twice, too few to tell)`;
}

/** Why the verdict is what it is, in one sentence. */
export function agreementVerdictHint(a: Agreement): string {
  const c = agreementCoefficient(a);
  const bar = CALIBRATION_BAR.toFixed(1);
  switch (a.verdict) {
    case 'calibrated':
      return `${c.symbol} is at least ${bar} even at its interval's lower end, over ${a.n} sessions`;
    case 'not_calibrated':
      return `${c.symbol} stays under ${bar} even at its interval's upper end`;
    default: {
      if (a.n < CALIBRATION_MIN_N) {
        const more = CALIBRATION_MIN_N - a.n;
        return `${more} more labelled session${more === 1 ? '' : 's'} needed (at least ${CALIBRATION_MIN_N})`;
      }
      if (c.value === null) return `no ${c.symbol} yet: the judge's or the people's scores do not vary`;
      return `${c.symbol}'s interval (${formatRange(c.interval)}) still straddles ${bar}: more labels narrow it`;
    }
  }
}

/** The fewest randomly sampled labelled sessions a corrected score takes. */
export const CORRECTION_MIN_LABELS = 10;

/**
 * A run metric's corrected score: `0.712 (0.650 – 0.780)` with what it rests on, or `—` with what
 * it takes (the API answers null with fewer than 10 sampled labelled sessions, or fewer than 2 others).
 */
export function correctedText(c: CorrectedScore | null | undefined): { score: string; detail: string } {
  if (!c) return { score: '—', detail: `label ≥ ${CORRECTION_MIN_LABELS} sampled sessions` };
  const effective = c.effectiveLabels === null ? '' : `, ${c.effectiveLabels.toFixed(1)} effective labels`;
  return {
    score: `${formatScore(c.score)} (${formatInterval(c.interval)})`,
    detail: `${c.labeled} labelled${effective}`,
  };
}

// ---------- formatting ----------

export function formatScore(score: number | null): string {
  return score === null ? '—' : score.toFixed(3);
}

export function formatInterval(ci: Interval | null): string {
  return ci === null ? 'not yet (under 30 scores)' : `${ci.lower.toFixed(3)} – ${ci.upper.toFixed(3)}`;
}

export function formatPercent(p: number): string {
  return `${Number(p.toFixed(2))}%`;
}

export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** `2026-11-24 07:49 UTC`, or `—`. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? iso : `${t.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatDay(iso: string): string {
  return iso.slice(0, 10);
}
