import type { ApiClient } from './client';
import {
  asEvaluation,
  asList,
  asMonitor,
  asMonitorResults,
  asRun,
  asSession,
  asSpan,
  asTurn,
  type Evaluation,
  type Monitor,
  type MonitorResults,
  type Run,
  type Session,
  type Span,
  type Turn,
} from '../view-models';

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
