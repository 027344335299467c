import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';

/**
 * The S3 client, created on first use (a function that never touches an object pays nothing for
 * it at a cold start). `S3_ENDPOINT` points at the local emulator, which needs path-style
 * addressing; checksums only where S3 requires them (s3rver stores streamed uploads corrupted
 * otherwise, and a presigned PUT from a browser carries none).
 */
const endpoint = optionalEnv(ENV.s3Endpoint);
let client: S3Client | undefined;
export function s3(): S3Client {
  return (client ??= new S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  }));
}

export const bucketName = requireEnv(ENV.bucketName);
/** Endpoints whose path-style URLs count as S3 when canonicalising (the local emulator). */
export const localS3Endpoints = endpoint ? [endpoint] : [];

export const PUT_URL_SECONDS = 15 * 60;
export const GET_URL_SECONDS = 60 * 60;

/** A presigned PUT (the presigner leaves Content-Type unsigned, so a browser may send its own). */
export function presignPut(key: string, contentType: string): Promise<string> {
  return getSignedUrl(s3(), new PutObjectCommand({ Bucket: bucketName, Key: key, ContentType: contentType }), {
    expiresIn: PUT_URL_SECONDS,
  });
}

export function presignGet(key: string): Promise<string> {
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucketName, Key: key }), { expiresIn: GET_URL_SECONDS });
}

const notFound = (error: unknown, names: string[]) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return names.includes(e.name ?? '') || e.$metadata?.httpStatusCode === 404;
};

export async function objectExists(key: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: bucketName, Key: key }));
    return true;
  } catch (error) {
    if (notFound(error, ['NotFound', 'NoSuchKey'])) return false;
    throw error;
  }
}

/**
 * An object's size and its first `bytes` bytes (a ranged GET after a HEAD: an empty object has no
 * range to read); undefined when it does not exist.
 */
export async function readObjectStart(
  key: string,
  bytes: number,
): Promise<{ size: number; start: Buffer } | undefined> {
  try {
    const head = await s3().send(new HeadObjectCommand({ Bucket: bucketName, Key: key }));
    const size = head.ContentLength ?? 0;
    if (size === 0) return { size, start: Buffer.alloc(0) };
    const out = await s3().send(new GetObjectCommand({ Bucket: bucketName, Key: key, Range: `bytes=0-${bytes - 1}` }));
    const chunks: Buffer[] = [];
    for await (const chunk of out.Body as Readable) chunks.push(Buffer.from(chunk as Uint8Array));
    return { size, start: Buffer.concat(chunks) };
  } catch (error) {
    if (notFound(error, ['NotFound', 'NoSuchKey'])) return undefined;
    throw error;
  }
}

/** A streamed read of an object; undefined when it does not exist. */
export async function readObjectStream(key: string): Promise<Readable | undefined> {
  try {
    const out = await s3().send(new GetObjectCommand({ Bucket: bucketName, Key: key }));
    return out.Body as Readable;
  } catch (error) {
    if (notFound(error, ['NoSuchKey'])) return undefined;
    throw error;
  }
}

export async function putObject(key: string, body: string | Uint8Array, contentType: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: bucketName, Key: key, Body: body, ContentType: contentType }));
}

export async function readObjectText(key: string): Promise<string | undefined> {
  return (await readObjectBytes(key))?.toString('utf8');
}

/** An object's bytes; undefined when it does not exist. */
export async function readObjectBytes(key: string): Promise<Buffer | undefined> {
  const stream = await readObjectStream(key);
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The canonical URI of an object of the bucket. */
export function objectUri(key: string): string {
  return `s3://${bucketName}/${key}`;
}

/**
 * Deletes objects (up to 1,000 per request, quiet); a key that does not exist is not an error,
 * and keys refused inside a 200 answer are not thrown (a later sweep finds them again).
 */
export async function deleteObjects(keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const chunk = keys.slice(i, i + 1000);
    await s3().send(
      new DeleteObjectsCommand({ Bucket: bucketName, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }),
    );
  }
}
