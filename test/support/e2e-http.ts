import { inject } from 'vitest';
import { jsonClient } from './http-client.js';

/** e2e: calls the local server started by the global setup with the demo key. */
export function http(method: string, path: string, body?: unknown) {
  return jsonClient(inject('serverUrl'), inject('demoApiKey'))(method, path, body);
}

/** Polls a record (`GET path`) until its status leaves `busy`. */
export async function waitForStatus(path: string, busy: readonly string[], timeoutMs = 50_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = (await http('GET', path)).body;
    if (!busy.includes(record.status)) return record;
    if (Date.now() > deadline)
      throw new Error(`${path} still ${record.status}: ${JSON.stringify(record.progress ?? {})}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
