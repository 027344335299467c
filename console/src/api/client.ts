import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** The API client typed from docs/openapi.json: every call carries the caller's key. */
export function createApiClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, ''), headers: { Authorization: `Bearer ${apiKey}` } });
}

export type ApiClient = ReturnType<typeof createApiClient>;
