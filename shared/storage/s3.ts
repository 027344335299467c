import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { awsError, formatUrl, httpRequest, readBody, send, signedClient, signingScope, type AwsError, type RawResponse } from '../aws/signed-http.js';
import { dnsSuffix, escapeUri, presignRequest } from '../aws/sigv4.js';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';

/**
 * The S3 calls the service makes (presigned PUT/GET, HEAD, GET, PUT, DeleteObjects), signed with
 * SigV4 as @aws-sdk/client-s3 signs them, without the SDK's S3 client (−150 KiB in every
 * bundle that touches storage; docs/cold-start.md). Created once per process. `S3_ENDPOINT` points
 * at the local emulator (path-style addressing); on AWS, virtual-hosted URLs of `AWS_REGION`.
 */
const endpoint = optionalEnv(ENV.s3Endpoint);
const client = signedClient('s3', { uriEscapePath: false, applyChecksum: true });
export const bucketName = requireEnv(ENV.bucketName);
/** Endpoints whose path-style URLs count as S3 when canonicalising (the local emulator). */
export const localS3Endpoints = endpoint ? [endpoint] : [];

export const PUT_URL_SECONDS = 15 * 60;
export const GET_URL_SECONDS = 60 * 60;

/** A key as S3 wants it in a path: each segment URI-encoded (RFC 3986, `!'()*` too), slashes kept. */
export function encodeKey(key: string): string {
  return key.split('/').map((segment) => (/^[\w.~-]+$/.test(segment) ? segment : escapeUri(segment))).join('/');
}

/** A bucket S3 can name in a host (no dots under TLS, DNS label rules), as the SDK decides. */
const virtualHostable = (bucket: string) => /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket);

/** The URL of an object (or of the bucket, key `''`): path-style on the emulator, virtual-hosted on AWS. */
export function objectUrl(key: string, options: { endpoint?: string; region?: string; bucket?: string } = {}): URL {
  const bucket = options.bucket ?? bucketName;
  const base = 'endpoint' in options ? options.endpoint : endpoint;
  const path = encodeKey(key);
  if (base) return new URL(`${base.replace(/\/+$/, '')}/${bucket}/${path}`);
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  const domain = dnsSuffix(region);
  return virtualHostable(bucket) ? new URL(`https://${bucket}.s3.${region}.${domain}/${path}`) : new URL(`https://s3.${region}.${domain}/${bucket}/${path}`);
}

/** The fields of an S3 XML error body (`<Error><Code>…</Code><Message>…</Message>…`). */
export function parseS3Error(xml: string): { code?: string; message?: string; requestId?: string } {
  const field = (name: string) => {
    const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
    return m ? unescapeXml(m[1]!) : undefined;
  };
  const code = field('Code');
  const message = field('Message');
  const requestId = field('RequestId');
  return { ...(code ? { code } : {}), ...(message ? { message } : {}), ...(requestId ? { requestId } : {}) };
}

/** A non-2xx answer as the SDK surfaces it: `name` the XML `<Code>` (`NotFound` for a bodiless 404). */
export async function s3Error(response: Pick<RawResponse, 'statusCode' | 'headers' | 'body'>): Promise<AwsError> {
  const parsed = parseS3Error(await readBody(response.body).catch(() => ''));
  const status = response.statusCode;
  const code = parsed.code ?? (status === 404 ? 'NotFound' : status === 403 ? 'Forbidden' : status === 400 ? 'BadRequest' : `Http${status}`);
  return awsError(code, parsed.message ?? code, status, parsed.requestId ?? response.headers['x-amz-request-id']);
}

/**
 * One signed S3 request on an object of the bucket (`query` for sub-resources such as `?delete`);
 * resolves with the 2xx response (its body unread) or rejects with the S3 error.
 */
export function s3Request(method: string, key: string, options: { query?: Record<string, string>; headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<RawResponse> {
  return send(
    client,
    () => {
      const url = objectUrl(key);
      for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
      return httpRequest(method, url, options.headers, options.body);
    },
    s3Error,
  );
}

/** Presigns as @aws-sdk/s3-request-presigner does: host signed only, UNSIGNED-PAYLOAD, `x-id` of the operation. */
export async function presign(
  method: 'GET' | 'PUT',
  key: string,
  expiresIn: number,
  options: { signingDate?: Date; contentType?: string; endpoint?: string; bucket?: string } = {},
): Promise<string> {
  const { signingDate, contentType, ...where } = options;
  const url = objectUrl(key, where);
  url.searchParams.set('x-id', method === 'PUT' ? 'PutObject' : 'GetObject');
  const request = httpRequest(method, url, {
    'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', // hoisted into the query with this spelling, as the SDK does
    // The SDK presigner leaves the content type unsigned (so a browser's own header is accepted).
    ...(contentType ? { 'content-type': contentType } : {}),
  });
  const signed = presignRequest(request, await signingScope(client, signingDate), {
    expiresIn,
    unsignableHeaders: new Set(['content-type']),
    unhoistableHeaders: new Set(),
  });
  return formatUrl(signed);
}

export function presignPut(key: string, contentType: string): Promise<string> {
  return presign('PUT', key, PUT_URL_SECONDS, { contentType });
}

export function presignGet(key: string): Promise<string> {
  return presign('GET', key, GET_URL_SECONDS);
}

const notFound = (error: unknown, names: string[]) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return names.includes(e.name ?? '') || e.$metadata?.httpStatusCode === 404;
};

export async function objectExists(key: string): Promise<boolean> {
  try {
    const res = await s3Request('HEAD', key);
    res.body.resume();
    return true;
  } catch (error) {
    if (notFound(error, ['NotFound', 'NoSuchKey'])) return false;
    throw error;
  }
}

/** A streamed read of an object; undefined when it does not exist. */
export async function readObjectStream(key: string): Promise<Readable | undefined> {
  try {
    return (await s3Request('GET', key)).body;
  } catch (error) {
    if (notFound(error, ['NoSuchKey'])) return undefined;
    throw error;
  }
}

export async function putObject(key: string, body: string | Uint8Array, contentType: string): Promise<void> {
  (await s3Request('PUT', key, { body, headers: { 'content-type': contentType } })).body.resume();
}

export async function readObjectText(key: string): Promise<string | undefined> {
  const stream = await readObjectStream(key);
  if (!stream) return undefined;
  return readBody(stream);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#x0D;', '\n': '&#x0A;' };
export const escapeXml = (s: string) => s.replace(/[&<>"'\r\n]/g, (c) => XML_ESCAPES[c]!);
const unescapeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g, (_, name: string, dec?: string, hex?: string) =>
    dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[name]!,
  );

/** The body of a quiet DeleteObjects request. */
export function deleteObjectsXml(keys: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${keys.map((k) => `<Object><Key>${escapeXml(k)}</Key></Object>`).join('')}<Quiet>true</Quiet></Delete>`;
}

/**
 * Deletes objects (up to 1,000 per request, quiet); a key that does not exist is not an error. As
 * with the SDK client before, keys refused inside a 200 answer are not thrown.
 */
export async function deleteObjects(keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const body = deleteObjectsXml(keys.slice(i, i + 1000));
    const res = await s3Request('POST', '', {
      query: { delete: '' },
      body,
      headers: { 'content-type': 'application/xml', 'content-md5': createHash('md5').update(body).digest('base64') },
    });
    res.body.resume();
  }
}
