import { createServer, type IncomingMessage, type Server } from 'node:http';
import { dispatch, invokeJob } from './gateway.js';

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
const MAX_BODY = 10 * 1024 * 1024; // API Gateway's payload limit

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The local HTTP server: every route of the route table through the local gateway, plus the
 * Lambda Invoke API for job functions (used by the build-info probe, as in AWS).
 */
export function createLocalServer(options: { quiet?: boolean } = {}): Server {
  return createServer(async (req, res) => {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (body === null) {
      res.writeHead(413, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Payload Too Large', message: 'request body over 10 MB' }));
      return;
    }
    const invoke = req.method === 'POST' ? INVOKE_PATH.exec(url.pathname) : null;
    if (invoke) {
      try {
        const result = await invokeJob(decodeURIComponent(invoke[1]!), body ? JSON.parse(body) : {});
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(result ?? null));
      } catch (error) {
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'X-Amz-Function-Error': 'Unhandled' })
          .end(JSON.stringify({ errorMessage: (error as Error).message }));
      }
      return;
    }
    // A Map, then own properties: parameters named `__proto__` or `constructor` stay ordinary keys.
    const grouped = new Map<string, string[]>();
    for (const [k, v] of url.searchParams) grouped.set(k, [...(grouped.get(k) ?? []), v]);
    const query = Object.fromEntries(grouped);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const out = await dispatch({ method: req.method ?? 'GET', path: url.pathname, query, headers, body, sourceIp: req.socket.remoteAddress });
    res.writeHead(out.statusCode, out.headers).end(out.body);
    if (!options.quiet) console.log(`${req.method} ${url.pathname}${url.search} → ${out.statusCode} ${Date.now() - started} ms`);
  });
}
