import type { ApiClient, Body, paths, Schema } from './client.js';
import {
  asAgreement,
  asAlert,
  asAlertRule,
  asCaseComparison,
  asConnection,
  asEvaluation,
  asList,
  asMetric,
  asMonitor,
  asNamed,
  asTestCase,
  asMonitorResults,
  asReviewItem,
  asReviewItemsAdded,
  asReviewQueue,
  asReviewTask,
  asRun,
  asRunComparison,
  asSession,
  asSpan,
  asTest,
  asTurn,
  asVersion,
  type Agreement,
  type Alert,
  type AlertRule,
  type CaseComparison,
  type Connection,
  type Evaluation,
  type LabelsBody,
  type Metric,
  type Monitor,
  type MonitorFilters,
  type MonitorResults,
  type Named,
  type ReviewItem,
  type ReviewItemsAdded,
  type ReviewQueue,
  type ReviewTask,
  type Run,
  type RunComparison,
  type RunFilters,
  type Session,
  type Span,
  type StartRunBody,
  type Test,
  type TestCase,
  type Turn,
  type Version,
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

/** What an openapi-fetch call resolves to (its typed `data` read as unknown, then narrowed). */
interface Fetched {
  data?: unknown;
  error?: unknown;
  response: Response;
}

async function unwrap(call: Promise<Fetched>): Promise<{ body: unknown; total: number | null; status: number }> {
  let answer: Fetched;
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
  return { body: answer.data, total: total === null ? null : Number(total), status: response.status };
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
  read: (offset: number) => Promise<{ body: unknown; total: number | null; status: number }>,
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
    listMonitors: async (offset: number, limit: number, filters: MonitorFilters = {}): Promise<Page<Monitor>> =>
      page(
        await unwrap(
          api.GET('/monitors', {
            params: {
              query: {
                offset,
                limit,
                sort: ['createdAt:desc'],
                ...(filters.productId ? { productIds: [filters.productId] } : {}),
                ...(filters.status ? { statuses: [filters.status] } : {}),
                ...(filters.q ? { name: filters.q } : {}),
              },
            },
            signal,
          }),
        ),
        asMonitor,
      ),
    getMonitor: async (id: string): Promise<Monitor> =>
      asMonitor((await unwrap(api.GET('/monitors/{id}', { params: { path: { id } }, signal }))).body),
    monitorResults: async (id: string, days: number): Promise<MonitorResults> =>
      asMonitorResults(
        (await unwrap(api.GET('/monitors/{id}/results', { params: { path: { id }, query: { days } }, signal }))).body,
      ),
    /** A page of runs, newest first, filtered with the list's own parameters (the API filters). */
    listRuns: async (offset: number, limit: number, filters: RunFilters = {}): Promise<Page<Run>> =>
      page(
        await unwrap(
          api.GET('/runs', {
            params: {
              query: {
                offset,
                limit,
                sort: ['createdAt:desc'],
                ...(filters.productId ? { productIds: [filters.productId] } : {}),
                ...(filters.versionId ? { versionIds: [filters.versionId] } : {}),
                ...(filters.testId ? { testIds: [filters.testId] } : {}),
                ...(filters.status ? { statuses: [filters.status] } : {}),
                ...(filters.q ? { name: filters.q } : {}),
              },
            },
            signal,
          }),
        ),
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
    /** Every version (the first 5000), by name. */
    allVersions: async (): Promise<Version[]> =>
      (
        await all(
          (offset) => unwrap(api.GET('/versions', { params: { query: { offset, limit: 1000 } }, signal })),
          asVersion,
        )
      ).sort((a, b) => a.name.localeCompare(b.name)),
    /** Every test (the first 5000), by name. */
    allTests: async (): Promise<Test[]> =>
      (
        await all((offset) => unwrap(api.GET('/tests', { params: { query: { offset, limit: 1000 } }, signal })), asTest)
      ).sort((a, b) => a.name.localeCompare(b.name)),
    /** A product's CONVERSATION endpoint connections (what a version's runs call), by name. */
    conversationConnections: async (productId: string): Promise<Connection[]> =>
      (
        await all(
          (offset) =>
            unwrap(
              api.GET('/endpointConnections', {
                params: { query: { productIds: [productId], types: ['CONVERSATION'], offset, limit: 1000 } },
                signal,
              }),
            ),
          asConnection,
        )
      ).sort((a, b) => a.name.localeCompare(b.name)),
    /** Every case of the tests `testIds` (at most 100 tests), in index order (pages of 1000). */
    allTestCases: (testIds: string[]): Promise<TestCase[]> =>
      all(
        (offset) =>
          unwrap(
            api.GET('/testCases', {
              params: { query: { testIds: testIds.slice(0, 100), offset, limit: 1000, sort: ['index:asc'] } },
              signal,
            }),
          ),
        asTestCase,
        100_000,
      ),
    createProduct: async (name: string): Promise<Named> =>
      asNamed((await unwrap(api.POST('/products', { body: { name }, signal }))).body),
    createVersion: async (
      body: Pick<Body<'versionsCreate'>, 'productId' | 'name' | 'conversationEndpointConnectionId'>,
    ): Promise<Version> => asVersion((await unwrap(api.POST('/versions', { body, signal }))).body),
    startRun: async (body: StartRunBody): Promise<Run> =>
      asRun((await unwrap(api.POST('/runs', { body, signal }))).body),
    /**
     * A CSV file as a test, as the README's walkthrough does it: a presigned PUT URL, the file put
     * there, then `POST /tests` with its storage URI (the API imports it at once: SUCCESS with its
     * cases, or FAILED with the line and the reason).
     */
    uploadTest: async (upload: {
      productId: string;
      name: string;
      type: Test['type'];
      file: Blob;
      fileName: string;
    }): Promise<Test> => {
      const presigned = (
        await unwrap(
          api.GET('/storage/generate-put-presigned-url', {
            params: { query: { fileName: upload.fileName, contentType: 'text/csv' } },
            signal,
          }),
        )
      ).body as Schema<'StorageUpload'>;
      let put: Response;
      try {
        put = await fetch(presigned.url, {
          method: 'PUT',
          body: upload.file,
          headers: { 'content-type': 'text/csv' },
          signal,
        });
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') throw error;
        throw new ApiUnreachableError(`the upload did not reach storage: ${(error as Error).message}`);
      }
      if (!put.ok) throw new ApiError(put.status, put.statusText || 'Upload failed', `storage answered ${put.status}`);
      return asTest(
        (
          await unwrap(
            api.POST('/tests', {
              body: { productId: upload.productId, name: upload.name, type: upload.type, uri: presigned.uri },
              signal,
            }),
          )
        ).body,
      );
    },
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
      String(
        ((await unwrap(api.GET('/storage', { params: { query: { uri } }, signal }))).body as Schema<'StorageDownload'>)
          .url,
      ),
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
    ...reviewResources(api, signal),
  };
}

export type Resources = ReturnType<typeof resources>;

/** The body of `POST /reviewQueues`. */
export type ReviewQueueCreate = Body<'reviewQueuesCreate'>;
/** A sample of a run's sessions for `POST /reviewQueues/{id}/items`. */
export type RunSample = Required<Pick<Body<'reviewQueuesAddItems'>, 'runId' | 'sampleSize'>> &
  Pick<Body<'reviewQueuesAddItems'>, 'seed'>;

/** The human review's reads and writes: queues, their items, labels and a metric's agreement. */
export function reviewResources(api: ApiClient, signal?: AbortSignal) {
  return {
    listReviewQueues: async (productId: string | null, offset: number, limit: number): Promise<Page<ReviewQueue>> =>
      page(
        await unwrap(
          api.GET('/reviewQueues', {
            params: {
              query: { offset, limit, sort: ['createdAt:desc'], ...(productId ? { productIds: [productId] } : {}) },
            },
            signal,
          }),
        ),
        asReviewQueue,
      ),
    getReviewQueue: async (id: string): Promise<ReviewQueue> =>
      asReviewQueue((await unwrap(api.GET('/reviewQueues/{id}', { params: { path: { id } }, signal }))).body),
    createReviewQueue: async (body: ReviewQueueCreate): Promise<ReviewQueue> =>
      asReviewQueue((await unwrap(api.POST('/reviewQueues', { body, signal }))).body),
    /** A seeded uniform sample of a run's COMPLETED sessions not yet in the queue. */
    addRunSample: async (id: string, sample: RunSample): Promise<ReviewItemsAdded> =>
      asReviewItemsAdded(
        (await unwrap(api.POST('/reviewQueues/{id}/items', { params: { path: { id } }, body: sample, signal }))).body,
      ),
    /** The reviewer's next item (without the judge's scores), or null when nothing is left (204). */
    nextReviewTask: async (id: string, reviewer: string): Promise<ReviewTask | null> => {
      const answer = await unwrap(
        api.POST('/reviewQueues/{id}/next', { params: { path: { id } }, body: { reviewer }, signal }),
      );
      return answer.status === 204 ? null : asReviewTask(answer.body);
    },
    putLabels: async (id: string, itemId: string, body: LabelsBody): Promise<ReviewItem> =>
      asReviewItem(
        (
          await unwrap(
            api.PUT('/reviewQueues/{id}/items/{itemId}/labels', { params: { path: { id, itemId } }, body, signal }),
          )
        ).body,
      ),
    /** How far a metric's judge agrees with people, over one product's labelled sessions. */
    agreement: async (metricId: string, productId: string): Promise<Agreement> =>
      asAgreement(
        (
          await unwrap(
            api.GET('/metrics/{id}/agreement', { params: { path: { id: metricId }, query: { productId } }, signal }),
          )
        ).body,
      ),
    /** Every product (the first 1000), by name. */
    allProducts: async (): Promise<Named[]> =>
      (
        await all(
          (offset) => unwrap(api.GET('/products', { params: { query: { offset, limit: 1000 } }, signal })),
          asNamed,
          1000,
        )
      ).sort((a, b) => a.name.localeCompare(b.name)),
    /** Every metric the organization sees (its own and the predefined ones, legacy included), by name. */
    allMetrics: async (): Promise<Metric[]> =>
      (
        await all(
          (offset) =>
            unwrap(api.GET('/metrics', { params: { query: { offset, limit: 1000, includeLegacy: true } }, signal })),
          asMetric,
        )
      ).sort((a, b) => a.name.localeCompare(b.name)),
    /** Metrics by id (a queue's: at most 10), legacy ones included. */
    metricsByIds: async (ids: string[]): Promise<Metric[]> =>
      ids.length === 0
        ? []
        : page(
            await unwrap(
              api.GET('/metrics', {
                params: { query: { ids: ids.slice(0, 100), limit: 100, includeLegacy: true } },
                signal,
              }),
            ),
            asMetric,
          ).items,
    /** The finished runs of a product, newest first (the first 100). */
    finishedRunsOfProduct: async (productId: string): Promise<Run[]> =>
      page(
        await unwrap(
          api.GET('/runs', {
            params: {
              query: {
                productIds: [productId],
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
  };
}
