import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './guard.js';
import { clock } from '../domain/common/clock.js';

/** An outbound request: the agent caller's, a connection test's or a webhook delivery's. */
export interface OutboundRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | null;
}

/** One HTTP attempt to the checked address: per-attempt timeout, no redirects, at most 5 MiB read. */

export const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

export type SendOutcome =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'network'; error: string; durationMs: number }
  | { kind: 'too_large'; status: number; headers: Record<string, string>; durationMs: number }
  | { kind: 'aborted'; durationMs: number };

/**
 * Connects only to the checked addresses, whatever name the URL holds: the name stays for Host and
 * SNI, and there is no second lookup. Node asks for all of them when it races IPv6 and IPv4
 * (`localhost` is often both).
 */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

function flatHeaders(raw: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * node:http, loaded by the first plain-HTTP request. The SDK's client loads node:https only, and
 * node:http's server half made a third of a small function's import time (docs/cold-start.md);
 * agents and webhook receivers are mostly HTTPS.
 */
let plainHttp: Promise<typeof import('node:http')> | undefined;
const httpModule = () => (plainHttp ??= import('node:http'));

export async function sendOnce(
  req: OutboundRequest,
  addresses: ResolvedAddress[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const isHttps = req.url.protocol === 'https:';
  const transport = isHttps ? https : await httpModule();
  // Measured on the service clock, the one the attempt's timeout runs on.
  const started = clock.now().getTime();
  const elapsed = () => Math.round(clock.now().getTime() - started);
  const hostname = req.url.hostname.replace(/^\[|\]$/g, '');
  const headers: Record<string, string> = { ...req.headers };
  if (req.body !== null) headers['Content-Length'] = String(Buffer.byteLength(req.body, 'utf8'));

  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    let answer: { status: number; headers: Record<string, string> } | undefined;
    /** Why we ended the attempt ourselves, set before the socket is destroyed. */
    let stopped: 'too_large' | 'timeout' | 'aborted' | undefined;
    const stop = (why: 'too_large' | 'timeout' | 'aborted') => {
      stopped ??= why;
      request.destroy(new Error(why));
    };
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      timeout.clear();
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const options: https.RequestOptions = {
      method: req.method,
      hostname,
      port: req.url.port || (isHttps ? 443 : 80),
      path: `${req.url.pathname}${req.url.search}`,
      headers,
      lookup: pinnedLookup(addresses),
      // A fresh connection per attempt: a pooled socket would skip the address check.
      agent: false,
      ...(isHttps ? { servername: hostname } : {}),
    };
    const request = transport.request(options, (res) => {
      answer = { status: res.statusCode ?? 0, headers: flatHeaders(res.headers) };
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) {
        stop('too_large');
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          stop('too_large');
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        finish({ kind: 'answer', ...answer!, body: Buffer.concat(chunks).toString('utf8'), durationMs: elapsed() });
      });
      res.on('error', (error) => onError(error));
      // A connection dropped in the middle of the body ends here without 'end'.
      res.on('close', () => {
        if (!res.complete) onError(new Error('the connection closed before the answer was complete'));
      });
    });
    const onError = (error: Error) => {
      if (stopped === 'too_large') finish({ kind: 'too_large', ...answer!, durationMs: elapsed() });
      else if (stopped === 'timeout') finish({ kind: 'timeout', durationMs: elapsed() });
      else if (stopped === 'aborted' || signal?.aborted) finish({ kind: 'aborted', durationMs: elapsed() });
      else finish({ kind: 'network', error: networkMessage(error), durationMs: elapsed() });
    };
    request.on('error', onError);
    // Armed on the service clock, so a test can let it expire without waiting for it.
    const timeout = clock.timeout(Math.max(1, timeoutMs));
    timeout.signal.addEventListener('abort', () => stop('timeout'), { once: true });
    const onAbort = () => stop('aborted');
    if (signal) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    if (req.body !== null) request.end(req.body);
    else request.end();
  });
}

function networkMessage(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  const text = error.message || 'connection failed';
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}
