import { expect, inject } from 'vitest';
import { createApiClient, type ApiClient } from '../../console/src/api/client.js';

/**
 * The e2e tests' client: the console's typed client (console/src/api/client.ts, openapi-fetch over
 * the types generated from docs/openapi.json) against the e2e server, so paths, parameters and
 * bodies are type-checked against the document.
 */
export function e2eApi(apiKey: string = inject('demoApiKey')): ApiClient {
  return createApiClient({ baseUrl: inject('serverUrl'), apiKey });
}

/** The answer's data after checking its status (the error body is the assertion's message). */
export async function expectStatus<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  status: number,
): Promise<T> {
  const { data, error, response } = await call;
  expect(response.status, JSON.stringify(error)).toBe(status);
  return data as T;
}
