import { Agent as HttpAgent, request as httpRequestOf, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequestOf } from 'node:https';
import { envCredentials, envRegion, queryString, signRequest, type AwsRequest, type Credentials, type SigningScope } from './sigv4.js';

/**
 * The few pieces of an AWS client the service's own DynamoDB, S3 and SQS clients need: SigV4
 * signing (./sigv4.ts), credentials and region from the environment (what Lambda provides), a
 * keep-alive HTTP transport on node:http(s), and the SDK's standard retry. No AWS SDK in a
 * function's bundle (docs/cold-start.md, docs/decisions.md).
 */

export type { AwsRequest } from './sigv4.js';
export { formatUrl } from './sigv4.js';

export interface SignedClient {
  service: string;
  uriEscapePath: boolean;
  applyChecksum: boolean;
}

/** A client for `service`, signing in the region of `AWS_REGION` with the credentials of `useCredentials` (the environment's unless a tool set another source). */
export function signedClient(service: string, options: { uriEscapePath?: boolean; applyChecksum?: boolean } = {}): SignedClient {
  return { service, uriEscapePath: options.uriEscapePath ?? true, applyChecksum: options.applyChecksum ?? false };
}

/** Where credentials come from: the environment (what Lambda sets), unless a tool installs another source. */
let credentialSource: () => Credentials | Promise<Credentials> = () => envCredentials();

/**
 * Replaces the environment as the source of credentials: the operator CLIs, run against a deployed
 * table, install the SDK's default chain (profiles, SSO). Functions never call it.
 */
export function useCredentials(source: () => Credentials | Promise<Credentials>): void {
  credentialSource = source;
}

/** The signing scope of `client` now (region from the environment, credentials from their source). */
export async function signingScope(client: SignedClient, signingDate?: Date): Promise<SigningScope> {
  return {
    service: client.service,
    region: envRegion(),
    credentials: await credentialSource(),
    uriEscapePath: client.uriEscapePath,
    applyChecksum: client.applyChecksum,
    ...(signingDate ? { signingDate } : {}),
  };
}

/** A request to `url` (its query string included) with `host` set, as SigV4 signs it. */
export function httpRequest(method: string, url: URL, headers: Record<string, string> = {}, body?: string | Uint8Array): AwsRequest {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? [query[k]!].flat().concat(v) : v;
  return {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    // the path as given: S3 keys arrive encoded already (uriEscapePath: false)
    path: url.pathname,
    query,
    headers: { host: url.host, ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
    ...(body !== undefined ? { body } : {}),
  };
}

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: IncomingMessage;
}

/** Reads a response body to the end. */
export async function readBody(body: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** Keep-alive agents, one per protocol, for the process (the SDK's NodeHttpHandler keeps sockets alive too). */
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 50 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }) };
/** A request with no byte for this long is abandoned (a TimeoutError, retried). */
const SOCKET_TIMEOUT_MS = 30_000;

/** Sends a signed request; resolves with the status, headers and the unread body. */
export function transmit(request: AwsRequest, signal?: AbortSignal): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const https = request.protocol === 'https:';
    const search = Object.keys(request.query).length ? `?${queryString(request.query)}` : '';
    const req = (https ? httpsRequestOf : httpRequestOf)({
      method: request.method,
      hostname: request.hostname,
      ...(request.port ? { port: request.port } : {}),
      path: `${request.path}${search}`,
      headers: request.headers,
      agent: https ? agents.https : agents.http,
      ...(signal ? { signal } : {}),
    });
    req.setTimeout(SOCKET_TIMEOUT_MS, () => req.destroy(Object.assign(new Error(`no answer from ${request.hostname} within ${SOCKET_TIMEOUT_MS} ms`), { name: 'TimeoutError' })));
    req.once('error', reject);
    req.once('response', (res) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      resolve({ statusCode: res.statusCode ?? 0, headers, body: res });
    });
    req.end(request.body);
  });
}

/** The SDK's standard retry: throttling, 5xx and dropped connections. */
const THROTTLING = new Set(['Throttling', 'ThrottlingException', 'ThrottledException', 'RequestThrottledException', 'TooManyRequestsException', 'ProvisionedThroughputExceededException', 'TransactionInProgressException', 'RequestLimitExceeded', 'BandwidthLimitExceeded', 'LimitExceededException', 'RequestThrottled', 'SlowDown', 'PriorRequestNotComplete', 'EC2ThrottledException', 'RequestTimeout', 'RequestTimeoutException']);
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** An AWS error: `name` is the service's error code, `$metadata.httpStatusCode` its status. */
export interface AwsError extends Error {
  $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number };
  $fault?: 'client' | 'server';
  $retryable?: boolean;
}

export function awsError(code: string, message: string, statusCode: number | undefined, requestId?: string): AwsError {
  return Object.assign(new Error(message || code), {
    name: code,
    ...(statusCode !== undefined ? { $fault: statusCode >= 500 ? ('server' as const) : ('client' as const) } : {}),
    $metadata: { httpStatusCode: statusCode, ...(requestId ? { requestId } : {}) },
  });
}

/**
 * An AWS JSON error answer (DynamoDB, SQS, Lambda) as the SDK surfaces it: named by `__type` (or
 * the `x-amzn-errortype` header), with the body's other fields as they came (a DynamoDB
 * `TransactionCanceledException` keeps its raw `CancellationReasons`).
 */
export async function jsonError(response: Pick<RawResponse, 'statusCode' | 'headers' | 'body'>): Promise<AwsError & Record<string, unknown>> {
  const text = await readBody(response.body).catch(() => '');
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's page): named by the status
  }
  const { __type, code, message, Message, ...fields } = parsed;
  const type = String(__type ?? code ?? response.headers['x-amzn-errortype'] ?? `Http${response.statusCode}`);
  const name = type.split('#').pop()!.split(':')[0]!;
  return Object.assign(awsError(name, String(message ?? Message ?? name), response.statusCode, response.headers['x-amzn-requestid']), fields);
}

export const isThrottling = (error: unknown): boolean => THROTTLING.has((error as { name?: string })?.name ?? '') || (error as AwsError)?.$metadata?.httpStatusCode === 429;

function retryable(error: unknown): boolean {
  const e = error as Partial<AwsError> & { code?: string };
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) return NETWORK.has(e.code ?? '') || e.name === 'TimeoutError';
  return status === 429 || status >= 500 || THROTTLING.has(e.name ?? '');
}

/**
 * Signs and sends `request`; a non-2xx answer is turned into an error by `toError` (the body is
 * read there); throttling, 5xx and dropped connections are retried with jittered exponential
 * backoff (base 100 ms, 500 ms for throttling; at most 20 s), `maxAttempts` in all (3 by default);
 * `signal` aborts the request. Resolves with the 2xx response, its body unread.
 */
export function send(
  client: SignedClient,
  build: () => AwsRequest,
  toError: (response: RawResponse) => Promise<AwsError>,
  options: { maxAttempts?: number; signal?: AbortSignal } = {},
): Promise<RawResponse> {
  return attempt(client, build, toError, async (raw) => raw, options);
}

/** As `send`, with the 2xx body read as text in the same attempt (a connection dropped while it arrives is retried too). */
export function sendForText(
  client: SignedClient,
  build: () => AwsRequest,
  toError: (response: RawResponse) => Promise<AwsError>,
  options: { maxAttempts?: number; signal?: AbortSignal } = {},
): Promise<{ statusCode: number; headers: Record<string, string>; text: string }> {
  return attempt(client, build, toError, async (raw) => ({ statusCode: raw.statusCode, headers: raw.headers, text: await readBody(raw.body) }), options);
}

async function attempt<T>(
  client: SignedClient,
  build: () => AwsRequest,
  toError: (response: RawResponse) => Promise<AwsError>,
  ok: (raw: RawResponse) => Promise<T>,
  options: { maxAttempts?: number; signal?: AbortSignal },
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      const raw = await transmit(signRequest(build(), await signingScope(client)), options.signal);
      if (raw.statusCode >= 200 && raw.statusCode < 300) return await ok(raw);
      throw await toError(raw);
    } catch (error) {
      if (attempt >= maxAttempts || !retryable(error)) {
        if (error && typeof error === 'object' && '$metadata' in error) (error as AwsError).$metadata.attempts = attempt;
        throw error;
      }
      const base = isThrottling(error) ? 500 : 100;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20_000, base * 2 ** attempt)));
    }
  }
}
