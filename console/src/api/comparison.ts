/**
 * The two comparison routes, typed by hand: `docs/openapi.json` (and so `schema.d.ts`) does not
 * describe them yet, so they are read with a plain fetch here, in this one place, with their types
 * next to it. When the document describes them, these move to `resources.ts` over the typed client.
 */
import { UnexpectedAnswerError } from '../view-models.js';
import { ApiError, ApiUnreachableError, type Page } from './resources.js';

export type Verdict = 'improved' | 'regressed' | 'no_significant_change' | 'not_enough_data';

/** One metric of `GET /runs/{id}/comparison`: the run minus the base run, paired by test case. */
export interface MetricComparison {
  metricId: string;
  name: string;
  /** Test cases scored in both runs (the pairs). */
  n: number;
  onlyInBase: number;
  onlyInRun: number;
  baseScore: number | null;
  score: number | null;
  /** score − baseScore over the pairs. */
  difference: number | null;
  standardError: number | null;
  /** 95% interval of the difference, or null when there are too few pairs. */
  confidenceInterval: [number, number] | null;
  pValue: number | null;
  adjustedPValue: number | null;
  verdict: Verdict;
  /** The smallest difference these pairs would detect (80% power, 5% level). */
  minimumDetectableEffect: number | null;
}

export interface RunComparison {
  runId: string;
  baseRunId: string;
  pairedBy: 'testCaseId';
  verdict: Verdict;
  metrics: MetricComparison[];
}

/** One test case and metric of `GET /runs/{id}/comparison/cases`. */
export interface CaseComparison {
  testCaseId: string;
  metricId: string;
  metricName: string;
  input: unknown;
  baseScore: number | null;
  score: number | null;
  difference: number | null;
  baseSessionIds: string[];
  sessionIds: string[];
}

export type CaseChange = 'regressed' | 'improved' | 'unchanged' | 'any';
export type CaseSort = 'difference:asc' | 'difference:desc' | 'testCaseId';

export interface CaseQuery {
  metricIds?: string[];
  changed?: CaseChange;
  sort?: CaseSort;
  limit?: number;
  offset?: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields the pages read, checked like the `as…` helpers of view-models.ts do. */
function asRunComparison(value: unknown): RunComparison {
  if (!isObject(value) || !Array.isArray(value.metrics) || typeof value.verdict !== 'string')
    throw new UnexpectedAnswerError('the comparison answer lacks metrics or verdict');
  return value as unknown as RunComparison;
}

function asCaseComparisons(value: unknown): CaseComparison[] {
  if (!Array.isArray(value) || !value.every((c) => isObject(c) && typeof c.testCaseId === 'string'))
    throw new UnexpectedAnswerError('the comparison cases answer is not a list of cases');
  return value as CaseComparison[];
}

export interface ComparisonApiOptions {
  baseUrl: string;
  apiKey: string;
  signal?: AbortSignal;
  /** Another fetch (tests); defaults to the global one. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

export function comparisonApi(options: ComparisonApiOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));

  async function get(path: string, query: Record<string, string | number | string[] | undefined>) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
    }
    let response: Response;
    try {
      response = await doFetch(`${base}${path}?${params}`, {
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
        signal: options.signal,
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiUnreachableError(`the API did not answer: ${(error as Error).message}`);
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const e = isObject(body) ? body : {};
      throw new ApiError(
        response.status,
        typeof e.error === 'string' ? e.error : response.statusText,
        typeof e.message === 'string' ? e.message : `the API answered ${response.status}`,
      );
    }
    const total = response.headers.get('X-Total-Count');
    return { body, total: total === null ? null : Number(total) };
  }

  const path = (runId: string, tail = '') => `/runs/${encodeURIComponent(runId)}/comparison${tail}`;
  return {
    /** `GET /runs/{id}/comparison?baseRunId=`: per metric the paired difference, its interval and verdict. */
    comparison: async (runId: string, baseRunId: string): Promise<RunComparison> =>
      asRunComparison((await get(path(runId), { baseRunId })).body),
    /** `GET /runs/{id}/comparison/cases?baseRunId=…`: one page of cases (X-Total-Count). */
    cases: async (runId: string, baseRunId: string, query: CaseQuery = {}): Promise<Page<CaseComparison>> => {
      const answer = await get(path(runId, '/cases'), { baseRunId, ...query });
      const items = asCaseComparisons(answer.body);
      return { items, total: answer.total ?? items.length };
    },
  };
}

export type ComparisonApi = ReturnType<typeof comparisonApi>;
