/**
 * Typed views of the API's answers and the pure rules of the pages (routes, chart series, span
 * tree, formatting). No DOM here, so the unit tests run them under Node.
 *
 * The OpenAPI document does not describe response bodies yet, so the client types them as
 * unknown; each `as…` helper checks the fields a page relies on and names what is missing.
 */

export interface Interval {
  lower: number;
  upper: number;
}

/** Monitor score point. */
export interface ScorePoint {
  scoredSessions: number;
  score: number | null;
  confidenceInterval: Interval | null;
  collectingData: boolean;
}

export interface ResultsFamily {
  metricGroupId: string;
  name: string;
  headline: ScorePoint;
  buckets: (ScorePoint & { bucket: string })[];
}

export interface MonitorResults {
  monitorId: string;
  range: { from: string; to: string; bucketDays: number };
  metrics: ResultsFamily[];
  worstMetric: (ScorePoint & { metricGroupId: string; name: string }) | null;
  markers: {
    metricRevisions: { metricGroupId: string; name: string; metricId: string; at: string }[];
    samplingChanges: { at: string; samplingPercentage: number }[];
  };
  spend: { spentCredits: number; pendingCredits: number; capCredits: number | null; cycleStart: string | null };
  sessions: {
    scored: { sessionId: string; evaluatedAt: string; settledAtTurn: number | null; description: string }[];
    waiting: { sessionId: string; lastTurnAt: string; minutesSinceLastTurn: number; description: string }[];
  };
}

export type MonitorStatus = 'ACTIVE' | 'PAUSED' | 'CAPPED' | 'NO_CREDITS' | 'FAILING';

export interface Monitor {
  id: string;
  productId: string;
  name: string;
  metricGroupIds: string[];
  versionId: string | null;
  samplingPercentage: number;
  monthlyCreditCap: number | null;
  filterQuery: string | null;
  filterTarget: string | null;
  excludeQuery: string | null;
  excludeTarget: string | null;
  status: MonitorStatus;
  createdAt: string;
  deletedAt?: string;
}

export type RunStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface RunMetric {
  metricId: string;
  name: string;
  evaluated: number;
  failed: number;
  skipped: number;
  score: number | null;
  confidenceInterval: Interval | null;
}

export interface Run {
  id: string;
  productId: string;
  versionId: string;
  name: string;
  testIds: string[];
  specificationIds: string[];
  metricIds: string[];
  status: RunStatus;
  progress: { total: number; pending: number; running: number; completed: number; failed: number };
  metrics: RunMetric[];
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface Session {
  id: string;
  versionId: string;
  customId: string | null;
  testId: string | null;
  testCaseId: string | null;
  runId?: string | null;
  stoppingReason: string | null;
  error: string | null;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  isProduction: boolean;
  metadata: Record<string, unknown>;
  turnCount: number;
  lastTurnAt: string | null;
  closedAt: string | null;
  createdAt: string;
  deletedAt?: string;
}

export interface Turn {
  id: string;
  sessionId: string;
  index: number;
  input: string;
  output: string | null;
  retrievalContext: string[];
  latencyMs: number | null;
  usage: { inputTokens?: number; outputTokens?: number; cacheReadInputTokens?: number };
  cost: number | null;
  createdAt: string;
}

export interface Span {
  id: string;
  inferenceResultId: string;
  name: string;
  type: string;
  description: string | null;
  inputData: unknown;
  outputData: unknown;
  error: string | null;
  latencyMs: number | null;
  parentTraceId: string | null;
  startTime: string | null;
  endTime: string | null;
  createdAt: string;
}

export interface Evaluation {
  id: string;
  sessionId: string;
  inferenceResultId: string | null;
  metricId: string;
  metricName: string;
  monitorId: string | null;
  status: 'PENDING' | 'PENDING_HUMAN' | 'SUCCESS' | 'FAILED' | 'SKIPPED';
  score: number | null;
  reason: string | null;
  error: string | null;
  humanScore: number | null;
  humanReason: string | null;
  createdAt: string;
  evaluatedAt: string | null;
}

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

/** A list answer: every element narrowed. */
export function asList<T>(value: unknown, item: (v: unknown) => T): T[] {
  if (!Array.isArray(value)) throw new UnexpectedAnswerError('expected a list (JSON array)');
  return value.map(item);
}

// ---------- routes (after `#`, so the server needs no fallback) ----------

export const PAGE_SIZE = 25;
export const RESULT_DAYS = [7, 14, 30, 90] as const;

export type Route =
  | { page: 'monitors'; offset: number }
  | { page: 'monitor'; id: string; days: number }
  | { page: 'runs'; offset: number }
  | { page: 'run'; id: string; offset: number }
  | { page: 'session'; id: string }
  | { page: 'unknown'; path: string };

function intParam(params: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const raw = params.get(name);
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const n = Number(raw);
  return n >= min && n <= max ? n : fallback;
}

/** `#/monitors`, `#/monitors/{id}?days=30`, `#/runs?offset=25`, `#/runs/{id}`, `#/sessions/{id}`; `` and `#/` open the monitors. */
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
    if (section === undefined || (section === 'monitors' && id === undefined)) return { page: 'monitors', offset };
    if (section === 'monitors' && id) return { page: 'monitor', id, days: intParam(params, 'days', 1, 90, 7) };
    if (section === 'runs' && id === undefined) return { page: 'runs', offset };
    if (section === 'runs' && id) return { page: 'run', id, offset };
    if (section === 'sessions' && id) return { page: 'session', id };
  }
  return { page: 'unknown', path: pathPart || '/' };
}

export function href(route: Exclude<Route, { page: 'unknown' }>): string {
  const id = (x: string) => encodeURIComponent(x);
  switch (route.page) {
    case 'monitors':
      return route.offset ? `#/monitors?offset=${route.offset}` : '#/monitors';
    case 'monitor':
      return route.days === 7 ? `#/monitors/${id(route.id)}` : `#/monitors/${id(route.id)}?days=${route.days}`;
    case 'runs':
      return route.offset ? `#/runs?offset=${route.offset}` : '#/runs';
    case 'run':
      return route.offset ? `#/runs/${id(route.id)}?offset=${route.offset}` : `#/runs/${id(route.id)}`;
    case 'session':
      return `#/sessions/${id(route.id)}`;
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

/** "12 of 100 credits (3 pending)", or "12 credits, no cap" when uncapped. */
export function spendText(spend: { spentCredits: number; pendingCredits: number; capCredits: number | null }): string {
  const pending = spend.pendingCredits ? ` (${spend.pendingCredits} pending)` : '';
  return spend.capCredits === null
    ? `${spend.spentCredits} credits${pending}, no cap`
    : `${spend.spentCredits} of ${spend.capCredits} credits${pending}`;
}

/** Share of the cap used (spent + pending), 0–1, or null when uncapped. */
export function spendShare(spend: {
  spentCredits: number;
  pendingCredits: number;
  capCredits: number | null;
}): number | null {
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
