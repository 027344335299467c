/** A JSON client of a running server (e2e tests, benchmarks): status, parsed body and X-Total-Count. */
export function jsonClient(base: string, key: string) {
  return async function http(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; total: string | null }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, total: res.headers.get('x-total-count') };
  };
}
