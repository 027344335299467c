import { dispatch } from '../../infra/local/gateway.js';
import { createOrganizationWithKey } from '../../shared/domain/accounts/api-keys.js';
import type { Plan } from '../../shared/auth/context.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

type Query = Record<string, string | number | boolean | (string | number)[]>;

/** Calls the service in process, through the same gateway emulation as the local server. */
export async function call<T = any>(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; query?: Query; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiResponse<T>> {
  const query: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(options.query ?? {})) query[k] = Array.isArray(v) ? v.map(String) : [String(v)];
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await dispatch({ method, path, query, headers, body });
  const out = lower(res.headers);
  // JSON answers parsed; any other (JUnit XML) as its text.
  const json = !out['content-type'] || /json/i.test(out['content-type']);
  return {
    status: res.statusCode,
    body: res.body ? (json ? JSON.parse(res.body) : res.body) : undefined,
    headers: out,
  };
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

/** A client bound to one key. */
export function client(key: string) {
  return {
    key,
    get: <T = any>(path: string, query?: Query) => call<T>('GET', path, { key, query }),
    post: <T = any>(path: string, body?: unknown) => call<T>('POST', path, { key, body }),
    patch: <T = any>(path: string, body?: unknown) => call<T>('PATCH', path, { key, body }),
    put: <T = any>(path: string, body?: unknown) => call<T>('PUT', path, { key, body }),
    del: <T = any>(path: string, body?: unknown) => call<T>('DELETE', path, { key, body }),
  };
}
export type Client = ReturnType<typeof client>;

let counter = 0;
/** A fresh organization with its first key: every test works in its own tenant. */
export async function newTenant(options: { plan?: Plan; admin?: boolean; monthlyCredits?: number | null } = {}) {
  const { organization, apiKey } = await createOrganizationWithKey({
    name: `tenant ${++counter}`,
    plan: options.plan ?? 'PRO',
    admin: options.admin ?? false,
    monthlyCredits: options.monthlyCredits === undefined ? 1000 : options.monthlyCredits,
  });
  return { org: organization, key: apiKey.key, apiKey, api: client(apiKey.key) };
}

/** A fresh organization with this monthly credit limit, and its credits as `GET /organization` reads them. */
export async function tenantWithCredits(monthlyCredits: number | null = 100) {
  const t = await newTenant({ monthlyCredits });
  const credits = async () => {
    const org = (await t.api.get('/organization')).body as {
      spentCredits: number;
      pendingCredits: number;
      availableCredits: number | null;
    };
    return { spent: org.spentCredits, pending: org.pendingCredits, available: org.availableCredits };
  };
  return { ...t, credits };
}
