/** The benchmarks' JSON client of the local runtime: the parsed answer, or a thrown error naming the call and status. */
export function benchClient(url: string, key: string) {
  return async function http(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const out = (await res.json()) as any;
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
}
