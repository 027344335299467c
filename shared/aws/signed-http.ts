import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { buildQueryString, HttpRequest } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { IncomingMessage } from 'node:http';

/**
 * The few pieces of an AWS client the small S3 and SQS modules need, built only on what the
 * DynamoDB client already puts in every bundle (SignatureV4, HttpRequest, NodeHttpHandler, Sha256,
 * the default credential chain), so they add a few KiB instead of a whole SDK client
 * (docs/cold-start.md, docs/decisions.md).
 */

/** The default credential chain, resolved once and cached (memoized) for the process. */
let credentials: ReturnType<typeof defaultProvider> | undefined;
const credentialProvider = () => (credentials ??= defaultProvider());

export interface SignedClient {
  signer: SignatureV4;
  http: NodeHttpHandler;
}

/** A signer for `service` in the region of `AWS_REGION` and an HTTP handler (keep-alive agent). */
export function signedClient(service: string, options: { uriEscapePath?: boolean; applyChecksum?: boolean } = {}): SignedClient {
  return {
    signer: new SignatureV4({
      service,
      region: () => {
        const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
        return region ? Promise.resolve(region) : Promise.reject(new Error('AWS_REGION is not set'));
      },
      credentials: () => credentialProvider()(),
      sha256: Sha256,
      uriEscapePath: options.uriEscapePath ?? true,
      applyChecksum: options.applyChecksum ?? false,
    }),
    http: new NodeHttpHandler(),
  };
}

/** A request to `url` (its query string included) with `host` set, as SignatureV4 signs it. */
export function httpRequest(method: string, url: URL, headers: Record<string, string> = {}, body?: string | Uint8Array): HttpRequest {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? [query[k]!].flat().concat(v) : v;
  return new HttpRequest({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    // the path as given: S3 keys arrive encoded already (uriEscapePath: false)
    path: url.pathname,
    query,
    headers: { host: url.host, ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
}

/** The URL of a (presigned) request, query sorted as the SDK's formatUrl writes it. */
export function formatUrl(request: HttpRequest): string {
  const query = buildQueryString(request.query ?? {});
  return `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}${query ? `?${query}` : ''}`;
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

/** The SDK's standard retry: 3 attempts for throttling, 5xx and dropped connections. */
const MAX_ATTEMPTS = 3;
const THROTTLING = new Set(['Throttling', 'ThrottlingException', 'ThrottledException', 'RequestThrottledException', 'TooManyRequestsException', 'ProvisionedThroughputExceededException', 'TransactionInProgressException', 'RequestLimitExceeded', 'BandwidthLimitExceeded', 'LimitExceededException', 'RequestThrottled', 'SlowDown', 'PriorRequestNotComplete', 'EC2ThrottledException', 'RequestTimeout', 'RequestTimeoutException']);
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** An AWS error: `name` is the service's error code, `$metadata.httpStatusCode` its status. */
export interface AwsError extends Error {
  $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number };
  $retryable?: boolean;
}

export function awsError(code: string, message: string, statusCode: number | undefined, requestId?: string): AwsError {
  return Object.assign(new Error(message || code), { name: code, $metadata: { httpStatusCode: statusCode, ...(requestId ? { requestId } : {}) } });
}

function retryable(error: unknown): boolean {
  const e = error as Partial<AwsError> & { code?: string };
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) return NETWORK.has(e.code ?? '') || e.name === 'TimeoutError';
  return status === 429 || status >= 500 || THROTTLING.has(e.name ?? '');
}

/**
 * Signs and sends `request`; a non-2xx answer is turned into an error by `toError` (the body is
 * read there); throttling, 5xx and dropped connections are retried with jittered backoff.
 */
export async function send(client: SignedClient, build: () => HttpRequest, toError: (response: RawResponse) => Promise<AwsError>): Promise<RawResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      const signed = await client.signer.sign(build());
      const { response } = await client.http.handle(signed as HttpRequest);
      const raw = response as unknown as RawResponse;
      if (raw.statusCode >= 200 && raw.statusCode < 300) return raw;
      throw await toError(raw);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !retryable(error)) {
        if (error && typeof error === 'object' && '$metadata' in error) (error as AwsError).$metadata.attempts = attempt;
        throw error;
      }
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20_000, 100 * 2 ** attempt)));
    }
  }
}
