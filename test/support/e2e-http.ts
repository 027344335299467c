import { inject } from 'vitest';

/** e2e: calls the local server started by the global setup with the demo key. */
export async function http(method: string, path: string, body?: unknown) {
  const res = await fetch(`${inject('serverUrl')}${path}`, {
    method,
    headers: { authorization: `Bearer ${inject('demoApiKey')}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, total: res.headers.get('x-total-count') };
}

/** Polls a record (`GET path`) until its status leaves `busy`. */
export async function waitForStatus(path: string, busy: readonly string[], timeoutMs = 50_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = (await http('GET', path)).body;
    if (!busy.includes(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`${path} still ${record.status}: ${JSON.stringify(record.progress ?? {})}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
