/**
 * The typed API client: openapi-fetch over the types `npm run openapi` generates from
 * docs/openapi.json (./schema.d.ts). Used by the console and by the e2e tests.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
/** A record or body schema of the document by name, e.g. `Schema<'Monitor'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

export interface ApiClientOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` or `https://example.com/api`. */
  baseUrl: string;
  /** The organization's key, `evk_…`, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Another fetch (tests, retries); defaults to the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

export function createApiClient(options: ApiClientOptions) {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
export type ApiClient = ReturnType<typeof createApiClient>;
