/**
 * The typed API client: openapi-fetch over the types `npm run openapi` generates from
 * docs/openapi.json (./schema.d.ts). Used by the console and by the e2e tests.
 */
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
/** A record or body schema of the document by name, e.g. `Schema<'Monitor'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];
/**
 * The JSON body an operation answers with (200 unless named), e.g. `Answer<'runsGet'>`: the shape
 * of an answer whose schema the document does not name.
 */
export type Answer<
  Op extends keyof operations,
  Status extends keyof operations[Op]['responses'] = 200 & keyof operations[Op]['responses'],
> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation takes, e.g. `Body<'runsCreate'>`. */
export type Body<Op extends keyof operations> =
  NonNullable<operations[Op]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;

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
