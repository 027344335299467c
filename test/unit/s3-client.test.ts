import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { deleteObjects, deleteObjectsXml, encodeKey, objectExists, objectUrl, parseS3Error, presign, putObject, readObjectStream, readObjectText, s3Error } from '../../shared/storage/s3.js';
import { s3ErrorXml } from '../support/fake-aws.js';

// The storage module signs S3 requests itself (SignatureV4, no SDK S3 client). Its pure parts are
// compared with what @aws-sdk/client-s3 3.1173 and @aws-sdk/s3-request-presigner 3.1164 produced
// for the same input (recorded before they were removed); its requests with a local server.
const fake = await vi.hoisted(async () => {
  const { startFakeAws } = await import('../support/fake-aws.js');
  const server = await startFakeAws();
  Object.assign(process.env, {
    S3_ENDPOINT: server.endpoint,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    AWS_SESSION_TOKEN: 'TOKEN/abc+=',
  });
  return server;
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

const BUCKET = process.env.BUCKET_NAME!;
const KEY = "orgs/org_1/uploads/01J/call recording (1)!*'ü+é~.wav";

describe('S3 URLs', () => {
  it("encode each key segment as S3 expects (RFC 3986, !'()* too), slashes kept", () => {
    expect(encodeKey(KEY)).toBe('orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav');
    expect(encodeKey('a/b?c#d&e=f%g')).toBe('a/b%3Fc%23d%26e%3Df%25g');
  });

  it('are virtual-hosted on AWS, path-style on an endpoint and for a bucket a host cannot name', () => {
    expect(objectUrl('k/x y', { endpoint: undefined, region: 'eu-west-1', bucket: 'my-bucket' }).href).toBe('https://my-bucket.s3.eu-west-1.amazonaws.com/k/x%20y');
    expect(objectUrl('k', { endpoint: undefined, region: 'us-east-1', bucket: 'my.dotted.bucket' }).href).toBe('https://s3.us-east-1.amazonaws.com/my.dotted.bucket/k');
    expect(objectUrl('k', { endpoint: undefined, region: 'cn-north-1', bucket: 'my-bucket' }).href).toBe('https://my-bucket.s3.cn-north-1.amazonaws.com.cn/k');
    expect(objectUrl('k', { endpoint: 'http://127.0.0.1:4569/', bucket: 'b' }).href).toBe('http://127.0.0.1:4569/b/k');
    expect(objectUrl('', { endpoint: 'http://127.0.0.1:4569', bucket: 'b' }).href).toBe('http://127.0.0.1:4569/b/');
  });
});

describe('presigned URLs', () => {
  const signingDate = new Date('2026-01-02T03:04:05Z');
  // [endpoint, bucket, method, the URL @aws-sdk/s3-request-presigner gave for the same request]
  const sdk: [string | undefined, string, 'GET' | 'PUT', string][] = [
    [undefined, 'my-bucket', 'PUT', 'https://my-bucket.s3.eu-west-1.amazonaws.com/orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=AKIDEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=900&X-Amz-Security-Token=TOKEN%2Fabc%2B%3D&X-Amz-Signature=10441936040e1f5ea515b1cf75d208d7dad852535e04af79dac402d805cf1887&X-Amz-SignedHeaders=host&x-id=PutObject'],
    [undefined, 'my-bucket', 'GET', 'https://my-bucket.s3.eu-west-1.amazonaws.com/orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=AKIDEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=3600&X-Amz-Security-Token=TOKEN%2Fabc%2B%3D&X-Amz-Signature=332d0fa749ecaa7b70e12b935830b4b61259f20b5189f2634ff2b978d8c2b54a&X-Amz-SignedHeaders=host&x-id=GetObject'],
    [undefined, 'my.dotted.bucket', 'PUT', 'https://s3.eu-west-1.amazonaws.com/my.dotted.bucket/orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=AKIDEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=900&X-Amz-Security-Token=TOKEN%2Fabc%2B%3D&X-Amz-Signature=a92cf5ce5f33e3dcda6970aa4df9586255f360f1dad62b58d4902a10372a3333&X-Amz-SignedHeaders=host&x-id=PutObject'],
    [undefined, 'my.dotted.bucket', 'GET', 'https://s3.eu-west-1.amazonaws.com/my.dotted.bucket/orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=AKIDEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=3600&X-Amz-Security-Token=TOKEN%2Fabc%2B%3D&X-Amz-Signature=93b725a7e1b978330b9300822a0102e9bd8d085e1a673a6175502faca1e59e1c&X-Amz-SignedHeaders=host&x-id=GetObject'],
    ['http://127.0.0.1:4569', 'my-bucket', 'PUT', 'http://127.0.0.1:4569/my-bucket/orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=AKIDEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=900&X-Amz-Security-Token=TOKEN%2Fabc%2B%3D&X-Amz-Signature=b8fdeabd675f438f6fc92f708cb87a2807f725c45097e13bb3d2f3db224e1785&X-Amz-SignedHeaders=host&x-id=PutObject'],
    ['http://127.0.0.1:4569', 'my-bucket', 'GET', 'http://127.0.0.1:4569/my-bucket/orgs/org_1/uploads/01J/call%20recording%20%281%29%21%2A%27%C3%BC%2B%C3%A9~.wav?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=AKIDEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=3600&X-Amz-Security-Token=TOKEN%2Fabc%2B%3D&X-Amz-Signature=0d71794645205dcfcf5764be8519543d0024fa0efcf151d5b840c2213b34dbf3&X-Amz-SignedHeaders=host&x-id=GetObject'],
  ];
  it.each(sdk)("equal the SDK presigner's (endpoint %s, bucket %s, %s)", async (endpoint, bucket, method, expected) => {
    const url = await presign(method, KEY, method === 'PUT' ? 900 : 3600, { signingDate, endpoint, bucket, ...(method === 'PUT' ? { contentType: 'audio/wav' } : {}) });
    expect(url).toBe(expected);
    // UNSIGNED-PAYLOAD, the expiry, only `host` signed (the SDK leaves Content-Type unsigned)
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  });
});

describe('S3 errors', () => {
  it('take the XML <Code> as name, its <Message> and the HTTP status', async () => {
    expect(parseS3Error(s3ErrorXml('NoSuchKey', 'The specified key does not exist &amp; more'))).toEqual({ code: 'NoSuchKey', message: 'The specified key does not exist & more', requestId: 'req-1' });
    const e = await s3Error({ statusCode: 403, headers: {}, body: Readable.from([Buffer.from(s3ErrorXml('AccessDenied', 'Access Denied'))]) as never });
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: 'AccessDenied', message: 'Access Denied', $metadata: { httpStatusCode: 403, requestId: 'req-1' } });
  });

  it('name a bodiless 404 (HEAD) NotFound, as the SDK does', async () => {
    const e = await s3Error({ statusCode: 404, headers: {}, body: Readable.from([]) as never });
    expect(e).toMatchObject({ name: 'NotFound', $metadata: { httpStatusCode: 404 } });
  });
});

describe('DeleteObjects', () => {
  it('writes the XML body the SDK wrote (keys escaped, quiet)', () => {
    expect(deleteObjectsXml(['a&b', '<c>', "'\"d", 'x\r\ny', 'é'])).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>a&amp;b</Key></Object><Object><Key>&lt;c&gt;</Key></Object><Object><Key>&apos;&quot;d</Key></Object><Object><Key>x&#x0D;&#x0A;y</Key></Object><Object><Key>é</Key></Object><Quiet>true</Quiet></Delete>',
    );
  });

  it('sends POST ?delete with Content-MD5, 1,000 keys per request', async () => {
    await deleteObjects(Array.from({ length: 2001 }, (_, i) => `k/${i}`));
    expect(fake.requests.map((r) => [r.method, r.url])).toEqual(Array(3).fill(['POST', `/${BUCKET}/?delete=`]));
    expect(fake.requests.map((r) => (r.body.match(/<Object>/g) ?? []).length)).toEqual([1000, 1000, 1]);
    for (const r of fake.requests) expect(r.headers['content-md5']).toBe(createHash('md5').update(r.body).digest('base64'));
  });
});

describe('signed S3 requests', () => {
  it('sign a PUT with SigV4 for s3 in AWS_REGION, the payload hash sent as x-amz-content-sha256', async () => {
    await putObject('k/x y.json', '{"a":"雨"}', 'application/json');
    const [r] = fake.requests;
    expect(r).toMatchObject({ method: 'PUT', url: `/${BUCKET}/k/x%20y.json`, body: '{"a":"雨"}' });
    expect(r!.headers['content-type']).toBe('application/json');
    expect(r!.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"雨"}')));
    expect(r!.headers['x-amz-content-sha256']).toBe(createHash('sha256').update('{"a":"雨"}').digest('hex'));
    expect(r!.headers['x-amz-security-token']).toBe('TOKEN/abc+=');
    expect(r!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
  });

  it('read an object as a Node stream; a missing one is undefined, HEAD says false', async () => {
    fake.reset((r) => (r.url.endsWith('/there') ? { body: 'hello' } : { status: 404, body: r.method === 'HEAD' ? '' : s3ErrorXml('NoSuchKey', 'The specified key does not exist.') }));
    const stream = await readObjectStream('there');
    expect(stream).toBeInstanceOf(Readable);
    stream!.resume();
    expect(await readObjectText('there')).toBe('hello');
    expect(await readObjectStream('missing')).toBeUndefined();
    expect(await objectExists('there')).toBe(true);
    expect(await objectExists('missing')).toBe(false);
  });

  it('throw other refusals, a 403 without retrying', async () => {
    fake.reset(() => ({ status: 403, body: s3ErrorXml('AccessDenied', 'Access Denied') }));
    await expect(readObjectText('k')).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403, attempts: 1 } });
    fake.reset(() => ({ status: 403 }));
    await expect(objectExists('k')).rejects.toMatchObject({ name: 'Forbidden', $metadata: { httpStatusCode: 403 } });
  });

  it('retry a 500 as the SDK did (3 attempts)', async () => {
    let n = 0;
    fake.reset(() => (++n < 3 ? { status: 500, body: s3ErrorXml('InternalError', 'We encountered an internal error.') } : { body: 'ok' }));
    expect(await readObjectText('k')).toBe('ok');
    expect(fake.requests).toHaveLength(3);
  });
});
