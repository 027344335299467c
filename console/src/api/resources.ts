import type { ApiClient, paths } from './client.js';
import {
  asAlert,
  asAlertRule,
  asCaseComparison,
  asEvaluation,
  asList,
  asMonitor,
  asNamed,
  asTestCase,
  asMonitorResults,
  asRun,
  asRunComparison,
  asSession,
  asSpan,
  asTurn,
  type Alert,
  type AlertRule,
  type CaseComparison,
  type Evaluation,
  type Monitor,
  type MonitorResults,
  type Named,
  type Run,
  type RunComparison,
  type Session,
  type Span,
  type TestCase,
  type Turn,
} from '../view-models.js';

/** A non-2xx answer: its status and the API's `{error, message}` body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** The API could not be reached at all (network, CORS, a wrong base URL). */
export class ApiUnreachableError extends Error {}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

async function unwrap(call: Promise<Answer>): Promise<{ body: unknown; total: number | null }> {
  let answer: Answer;
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiUnreachableError(`the API did not answer: ${(error as Error).message}`);
  }
  const { response } = answer;
  if (!response.ok) {
    const body = (answer.error ?? {}) as { error?: unknown; message?: unknown };
    throw new ApiError(
      response.status,
      typeof body.error === 'string' ? body.error : response.statusText,
      typeof body.message === 'string' ? body.message : `the API answered ${response.status}`,
    );
  }
  const total = response.headers.get('X-Total-Count');
  return { body: answer.data, total: total === null ? null : Number(total) };
}

/** The filters, order and page of `GET /runs/{id}/comparison/cases` (besides `baseRunId`). */
export type CaseQuery = Omit<
  NonNullable<paths['/runs/{id}/comparison/cases']['get']['parameters']['query']>,
  'baseRunId'
>;

export interface Page<T> {
  items: T[];
  total: number;
}

function page<T>(answer: { body: unknown; total: number | null }, item: (v: unknown) => T): Page<T> {
  const items = asList(answer.body, item);
  return { items, total: answer.total ?? items.length };
}

/** Every element of a list read in pages of 1000 (the API's largest page), up to `max`. */
async function all<T>(
  read: (offset: number) => Promise<{ body: unknown; total: number | null }>,
  item: (v: unknown) => T,
  max = 5000,
): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const p = page(await read(out.length), item);
    out.push(...p.items);
    if (p.items.length === 0 || out.length >= p.total || out.length >= max) return out;
  }
}

/** `ids` in groups of `size` (a list filter takes a bounded number of ids). */
export function chunks<T>(ids: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

/** `read` over each group of at most `size` ids, `parallel` groups at a time, answers in order. */
async function byChunks<T>(
  ids: string[],
  size: number,
  read: (group: string[]) => Promise<T[]>,
  parallel = 4,
): Promise<T[]> {
  const groups = chunks([...new Set(ids)], size);
  const answers: T[][] = new Array(groups.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, groups.length) }, async () => {
      for (let i = next++; i < groups.length; i = next++) answers[i] = await read(groups[i]!);
    }),
  );
  return answers.flat();
}

/** The reads the console makes, each answer narrowed to its view model. */
export function resources(api: ApiClient, signal?: AbortSignal) {
  return {
    listMonitors: async (offset: number, limit: number): Promise<Page<Monitor>> =>
      page(
        await unwrap(api.GET('/monitors', { params: { query: { offset, limit, sort: ['createdAt:desc'] } }, signal })),
        asMonitor,
      ),
    getMonitor: async (id: string): Promise<Monitor> =>
      asMonitor((await unwrap(api.GET('/monitors/{id}', { params: { path: { id } }, signal }))).body),
    monitorResults: async (id: string, days: number): Promise<MonitorResults> =>
      asMonitorResults(
        (await unwrap(api.GET('/monitors/{id}/results', { params: { path: { id }, query: { days } }, signal }))).body,
      ),
    listRuns: async (offset: number, limit: number): Promise<Page<Run>> =>
      page(
        await unwrap(api.GET('/runs', { params: { query: { offset, limit, sort: ['createdAt:desc'] } }, signal })),
        asRun,
      ),
    getRun: async (id: string): Promise<Run> =>
      asRun((await unwrap(api.GET('/runs/{id}', { params: { path: { id } }, signal }))).body),
    runSessions: async (runId: string, offset: number, limit: number): Promise<Page<Session>> =>
      page(
        await unwrap(
          api.GET('/sessions', {
            params: { query: { runIds: [runId], offset, limit, sort: ['createdAt:asc'] } },
            signal,
          }),
        ),
        asSession,
      ),
    /** Every session of a run, oldest first (pages of 1000). */
    allRunSessions: (runId: string): Promise<Session[]> =>
      all(
        (offset) =>
          unwrap(
            api.GET('/sessions', {
              params: { query: { runIds: [runId], offset, limit: 1000, sort: ['createdAt:asc'] } },
              signal,
            }),
          ),
        asSession,
        100_000,
      ),
    /** `GET /runs/{id}/comparison?baseRunId=`: per metric the paired difference, its interval and verdict. */
    runComparison: async (runId: string, baseRunId: string): Promise<RunComparison> =>
      asRunComparison(
        (
          await unwrap(
            api.GET('/runs/{id}/comparison', { params: { path: { id: runId }, query: { baseRunId } }, signal }),
          )
        ).body,
      ),
    /** `GET /runs/{id}/comparison/cases?baseRunId=…`: one page of paired cases (X-Total-Count). */
    comparisonCases: async (runId: string, baseRunId: string, query: CaseQuery = {}): Promise<Page<CaseComparison>> =>
      page(
        await unwrap(
          api.GET('/runs/{id}/comparison/cases', {
            params: { path: { id: runId }, query: { baseRunId, ...query } },
            signal,
          }),
        ),
        asCaseComparison,
      ),
    /** The other finished runs of a test, newest first (the first 100). */
    finishedRunsOfTest: async (testId: string): Promise<Run[]> =>
      page(
        await unwrap(
          api.GET('/runs', {
            params: {
              query: {
                testIds: [testId],
                statuses: ['COMPLETED', 'FAILED', 'CANCELLED'],
                limit: 100,
                sort: ['createdAt:desc'],
              },
            },
            signal,
          }),
        ),
        asRun,
      ).items,
    getProduct: async (id: string): Promise<Named> =>
      asNamed((await unwrap(api.GET('/products/{id}', { params: { path: { id } }, signal }))).body),
    getVersion: async (id: string): Promise<Named> =>
      asNamed((await unwrap(api.GET('/versions/{id}', { params: { path: { id } }, signal }))).body),
    getTest: async (id: string): Promise<Named> =>
      asNamed((await unwrap(api.GET('/tests/{id}', { params: { path: { id } }, signal }))).body),
    /** Test cases of the tests `testIds` by id (groups of 100, the filter's bound). */
    testCases: (testIds: string[], ids: string[]): Promise<TestCase[]> =>
      byChunks(ids, 100, (group) =>
        all(
          (offset) =>
            unwrap(
              api.GET('/testCases', {
                params: { query: { testIds: testIds.slice(0, 100), ids: group, offset, limit: 1000 } },
                signal,
              }),
            ),
          asTestCase,
        ),
      ),
    /** The turns of many sessions (groups of 50, the filter's bound). */
    turnsOf: (sessionIds: string[]): Promise<Turn[]> =>
      byChunks(sessionIds, 50, (group) =>
        all(
          (offset) =>
            unwrap(
              api.GET('/inferenceResults', { params: { query: { sessionIds: group, offset, limit: 1000 } }, signal }),
            ),
          asTurn,
          100_000,
        ),
      ),
    /** The evaluations of many sessions (groups of 50, the filter's bound). */
    evaluationsOf: (sessionIds: string[]): Promise<Evaluation[]> =>
      byChunks(sessionIds, 50, (group) =>
        all(
          (offset) =>
            unwrap(api.GET('/evaluations', { params: { query: { sessionIds: group, offset, limit: 1000 } }, signal })),
          asEvaluation,
          100_000,
        ),
      ),
    monitorOpenAlerts: (id: string): Promise<Alert[]> =>
      all(
        (offset) =>
          unwrap(
            api.GET('/monitors/{id}/alerts', {
              params: { path: { id }, query: { statuses: ['OPEN'], offset, limit: 1000, sort: ['createdAt:desc'] } },
              signal,
            }),
          ),
        asAlert,
      ),
    monitorAlertRules: (id: string): Promise<AlertRule[]> =>
      all(
        (offset) =>
          unwrap(
            api.GET('/monitors/{id}/alertRules', {
              params: { path: { id }, query: { offset, limit: 1000, sort: ['createdAt:asc'] } },
              signal,
            }),
          ),
        asAlertRule,
      ),
    /** A playable URL of a stored file (a call recording, a turn's audio): presigned, for an hour. */
    downloadUrl: async (uri: string): Promise<string> =>
      String(((await unwrap(api.GET('/storage', { params: { query: { uri } }, signal }))).body as { url: string }).url),
    getSession: async (id: string): Promise<Session> =>
      asSession((await unwrap(api.GET('/sessions/{id}', { params: { path: { id } }, signal }))).body),
    sessionTurns: (sessionId: string): Promise<Turn[]> =>
      all(
        (offset) =>
          unwrap(
            api.GET('/inferenceResults', {
              params: { query: { sessionIds: [sessionId], offset, limit: 1000 } },
              signal,
            }),
          ),
        asTurn,
      ),
    sessionSpans: (sessionId: string): Promise<Span[]> =>
      all(
        (offset) =>
          unwrap(api.GET('/traces', { params: { query: { sessionIds: [sessionId], offset, limit: 1000 } }, signal })),
        asSpan,
      ),
    sessionEvaluations: (sessionId: string): Promise<Evaluation[]> =>
      all(
        (offset) =>
          unwrap(
            api.GET('/evaluations', { params: { query: { sessionIds: [sessionId], offset, limit: 1000 } }, signal }),
          ),
        asEvaluation,
      ),
  };
}

export type Resources = ReturnType<typeof resources>;
