import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 (header signing and presigned URLs), as @smithy/signature-v4 computes it
 * for the SDK clients, on node:crypto. test/unit/sigv4.test.ts signs the same requests with both and
 * compares; s3rver checks the signatures of the storage integration tests.
 */

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An HTTP request as it is signed: the path as sent, the query unencoded, headers by name. */
export interface AwsRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface SigningScope {
  service: string;
  region: string;
  credentials: Credentials;
  /** Normalise and double-encode the path (every service but S3). */
  uriEscapePath?: boolean;
  /** Send the payload hash as `x-amz-content-sha256` (S3, SQS). */
  applyChecksum?: boolean;
  signingDate?: Date;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SHA256_HEADER = 'x-amz-content-sha256';
const ALWAYS_UNSIGNABLE = new Set([
  'authorization',
  'cache-control',
  'connection',
  'expect',
  'from',
  'keep-alive',
  'max-forwards',
  'pragma',
  'referer',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'x-amzn-trace-id',
]);
/** Headers the signer writes itself: dropped from the request before signing. */
const GENERATED = new Set(['authorization', 'x-amz-date', 'date']);

/** RFC 3986 encoding (`!'()*` too), as SigV4 wants it. */
export const escapeUri = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** The AWS credentials of the environment (what Lambda gives every function). */
export function envCredentials(env: NodeJS.ProcessEnv = process.env): Credentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw Object.assign(new Error('no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set'), { name: 'CredentialsProviderError' });
  }
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

/** The domain of a region's service endpoints: `amazonaws.com`, or `amazonaws.com.cn` in the China regions. */
export const dnsSuffix = (region: string): string => (region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com');

/** The region of the environment (`AWS_REGION`, else `AWS_DEFAULT_REGION`). */
export function envRegion(env: NodeJS.ProcessEnv = process.env): string {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  return region;
}

function dates(date: Date): { longDate: string; shortDate: string } {
  const longDate = date.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return { longDate, shortDate: longDate.slice(0, 8) };
}

/** Signing keys by secret, day, region and service (a process signs with few). */
const keyCache = new Map<string, Buffer>();
function signingKey(credentials: Credentials, shortDate: string, region: string, service: string): Buffer {
  const id = `${shortDate}:${region}:${service}:${credentials.accessKeyId}:${credentials.sessionToken ?? ''}:${credentials.secretAccessKey}`;
  let key = keyCache.get(id);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, shortDate), region), service), 'aws4_request');
    if (keyCache.size >= 50) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

function canonicalPath(path: string, uriEscapePath: boolean): string {
  if (!uriEscapePath) return path;
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

function canonicalQuery(query: Record<string, string | string[]>): string {
  const serialized = new Map<string, string>();
  for (const [key, value] of Object.entries(query)) {
    if (key.toLowerCase() === 'x-amz-signature') continue;
    const k = escapeUri(key);
    if (typeof value === 'string') serialized.set(k, `${k}=${escapeUri(value)}`);
    else if (Array.isArray(value)) serialized.set(k, value.map((v) => `${k}=${escapeUri(v)}`).sort().join('&'));
  }
  return [...serialized.keys()]
    .sort()
    .map((k) => serialized.get(k)!)
    .filter(Boolean)
    .join('&');
}

function canonicalHeaders(headers: Record<string, string>, unsignable?: ReadonlySet<string>): Record<string, string> {
  const canonical: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    if (value === undefined || value === null) continue;
    const lower = name.toLowerCase();
    if (ALWAYS_UNSIGNABLE.has(lower) || unsignable?.has(lower) || lower.startsWith('proxy-') || lower.startsWith('sec-')) continue;
    canonical[lower] = String(value).replace(/[\r\n]/g, ' ').replace(/[ \t]+/g, ' ').replace(/^ | $/g, '');
  }
  return canonical;
}

function payloadHash(request: AwsRequest): string {
  for (const name of Object.keys(request.headers)) if (name.toLowerCase() === SHA256_HEADER) return request.headers[name]!;
  if (request.body === undefined) return EMPTY_SHA256;
  return sha256Hex(request.body);
}

function signature(request: AwsRequest, headers: Record<string, string>, hash: string, scope: SigningScope, longDate: string, shortDate: string): { signature: string; credentialScope: string; signedHeaders: string } {
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    canonicalPath(request.path, scope.uriEscapePath ?? true),
    canonicalQuery(request.query),
    names.map((n) => `${n}:${headers[n]}`).join('\n'),
    '',
    signedHeaders,
    hash,
  ].join('\n');
  const credentialScope = `${shortDate}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = `${ALGORITHM}\n${longDate}\n${credentialScope}\n${sha256Hex(canonicalRequest)}`;
  const key = signingKey(scope.credentials, shortDate, scope.region, scope.service);
  return { signature: createHmac('sha256', key).update(stringToSign).digest('hex'), credentialScope, signedHeaders };
}

/** A copy of `request` without the headers the signer writes. */
function prepare(request: AwsRequest): AwsRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!GENERATED.has(name.toLowerCase())) headers[name] = value;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.query)) query[name] = Array.isArray(value) ? [...value] : value;
  return { ...request, headers, query };
}

/** Signs `request` in an `authorization` header (with `x-amz-date`, the session token, and the payload hash when `applyChecksum`). */
export function signRequest(request: AwsRequest, scope: SigningScope): AwsRequest {
  const signed = prepare(request);
  const { longDate, shortDate } = dates(scope.signingDate ?? new Date());
  signed.headers['x-amz-date'] = longDate;
  if (scope.credentials.sessionToken) signed.headers['x-amz-security-token'] = scope.credentials.sessionToken;
  const hash = payloadHash(signed);
  if ((scope.applyChecksum ?? true) && !Object.keys(signed.headers).some((n) => n.toLowerCase() === SHA256_HEADER)) signed.headers[SHA256_HEADER] = hash;
  const headers = canonicalHeaders(signed.headers);
  const s = signature(signed, headers, hash, scope, longDate, shortDate);
  signed.headers.authorization = `${ALGORITHM} Credential=${scope.credentials.accessKeyId}/${s.credentialScope}, SignedHeaders=${s.signedHeaders}, Signature=${s.signature}`;
  return signed;
}

export interface PresignOptions {
  expiresIn: number;
  /** Headers left out of the signature (a browser may send its own). */
  unsignableHeaders?: ReadonlySet<string>;
  /** `x-amz-*` headers kept as headers instead of moving into the query. */
  unhoistableHeaders?: ReadonlySet<string>;
}

/** A presigned copy of `request`: `x-amz-*` headers and the signature in the query. */
export function presignRequest(request: AwsRequest, scope: SigningScope, options: PresignOptions): AwsRequest {
  if (options.expiresIn > 7 * 24 * 3600) throw new Error('Signature version 4 presigned URLs must have an expiration date less than one week in the future');
  const { longDate, shortDate } = dates(scope.signingDate ?? new Date());
  const presigned = prepare(request);
  for (const name of Object.keys(presigned.headers)) {
    const lower = name.toLowerCase();
    if (lower.startsWith('x-amz-') && !options.unhoistableHeaders?.has(lower)) {
      presigned.query[name] = presigned.headers[name]!;
      delete presigned.headers[name];
    }
  }
  const credentialScope = `${shortDate}/${scope.region}/${scope.service}/aws4_request`;
  if (scope.credentials.sessionToken) presigned.query['X-Amz-Security-Token'] = scope.credentials.sessionToken;
  presigned.query['X-Amz-Algorithm'] = ALGORITHM;
  presigned.query['X-Amz-Credential'] = `${scope.credentials.accessKeyId}/${credentialScope}`;
  presigned.query['X-Amz-Date'] = longDate;
  presigned.query['X-Amz-Expires'] = String(options.expiresIn);
  const headers = canonicalHeaders(presigned.headers, options.unsignableHeaders);
  presigned.query['X-Amz-SignedHeaders'] = Object.keys(headers).sort().join(';');
  presigned.query['X-Amz-Signature'] = signature(presigned, headers, payloadHash(request), scope, longDate, shortDate).signature;
  return presigned;
}

/** The query string as the SDK writes it (keys sorted, RFC 3986 encoding; a bare key for an empty non-string). */
export function queryString(query: Record<string, string | string[]>): string {
  const parts: string[] = [];
  for (const key of Object.keys(query).sort()) {
    const value = query[key]!;
    const k = escapeUri(key);
    if (Array.isArray(value)) for (const v of value) parts.push(`${k}=${escapeUri(v)}`);
    else parts.push(value || typeof value === 'string' ? `${k}=${escapeUri(value)}` : k);
  }
  return parts.join('&');
}

/** The URL of a (presigned) request. */
export function formatUrl(request: AwsRequest): string {
  const query = queryString(request.query);
  return `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}${query ? `?${query}` : ''}`;
}
