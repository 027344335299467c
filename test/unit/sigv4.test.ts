import { describe, expect, it } from 'vitest';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { dnsSuffix, escapeUri, formatUrl, presignRequest, queryString, signRequest, type AwsRequest, type Credentials } from '../../shared/aws/sigv4.js';

// The service signs its DynamoDB, S3 and SQS requests itself (no SDK in a function's bundle). Each
// case is signed by ./shared/aws/sigv4.ts and by @smithy/signature-v4 (what the SDK clients sign
// with) at the same instant with the same credentials: every header and query member must agree.
const date = new Date('2026-11-24T20:30:05.123Z');
const creds: Credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const session: Credentials = { ...creds, sessionToken: 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+token/=' };

const smithy = (service: string, credentials: Credentials, uriEscapePath: boolean, applyChecksum: boolean) =>
  new SignatureV4({ service, region: 'eu-west-1', credentials, sha256: Sha256, uriEscapePath, applyChecksum });

const request = (r: Partial<AwsRequest> & Pick<AwsRequest, 'method' | 'path'>): AwsRequest => ({
  protocol: 'https:',
  hostname: 'dynamodb.eu-west-1.amazonaws.com',
  query: {},
  headers: { host: 'dynamodb.eu-west-1.amazonaws.com' },
  ...r,
});

const dynamoBody = JSON.stringify({ TableName: 't', Key: { pk: { S: 'ORG#org_1' }, sk: { S: 'PRODUCT#prd_é 雨' } } });
const cases: [string, AwsRequest, string, Credentials, boolean, boolean][] = [
  [
    'a DynamoDB JSON request',
    request({ method: 'POST', path: '/', headers: { host: 'dynamodb.eu-west-1.amazonaws.com', 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem', 'content-length': String(Buffer.byteLength(dynamoBody)) }, body: dynamoBody }),
    'dynamodb',
    creds,
    true,
    false,
  ],
  [
    'a DynamoDB request with a session token (Lambda credentials)',
    request({ method: 'POST', path: '/', headers: { host: 'dynamodb.eu-west-1.amazonaws.com', 'x-amz-target': 'DynamoDB_20120810.Query', 'user-agent': 'x', 'X-Amzn-Trace-Id': 'Root=1' }, body: '{}' }),
    'dynamodb',
    session,
    true,
    false,
  ],
  [
    'an S3 PUT of an encoded key (path as sent, payload hash header)',
    request({ method: 'PUT', hostname: 'b.s3.eu-west-1.amazonaws.com', path: '/uploads/org_1/a%20b%28c%29%E9%9B%A8.csv', headers: { host: 'b.s3.eu-west-1.amazonaws.com', 'content-type': 'text/csv', 'x-custom': '  a   b\t c  ' }, body: new TextEncoder().encode('a,b\n1,2\n') }),
    's3',
    creds,
    false,
    true,
  ],
  [
    'an S3 sub-resource POST with a bare query key and repeated members',
    request({ method: 'POST', hostname: '127.0.0.1', port: 4569, protocol: 'http:', path: '/bucket/', query: { delete: '', list: ['b', 'a'], 'x*y': "it's" }, headers: { host: '127.0.0.1:4569', 'content-md5': 'abc==' }, body: '<Delete/>' }),
    's3',
    session,
    false,
    true,
  ],
  [
    'a path with dot segments and doubled slashes, normalised and double-encoded (non-S3)',
    request({ method: 'GET', path: '/a/./b//../c d/é/', headers: { host: 'dynamodb.eu-west-1.amazonaws.com' } }),
    'execute-api',
    creds,
    true,
    false,
  ],
];

describe('SigV4 signing', () => {
  it.each(cases)('signs %s as @smithy/signature-v4 does', async (_, req, service, credentials, uriEscapePath, applyChecksum) => {
    const ours = signRequest(req, { service, region: 'eu-west-1', credentials, uriEscapePath, applyChecksum, signingDate: date });
    const theirs = await smithy(service, credentials, uriEscapePath, applyChecksum).sign(new HttpRequest({ ...req, headers: { ...req.headers } }), { signingDate: date });
    expect(ours.headers).toEqual(theirs.headers);
    expect(ours.query).toEqual(theirs.query);
    expect(ours.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261124\/eu-west-1\/\w[\w-]*\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/);
    // the request given is left as it was
    expect(req.headers.authorization).toBeUndefined();
  });

  it('replaces an authorization or date header already on the request', async () => {
    const req = request({ method: 'POST', path: '/', headers: { host: 'dynamodb.eu-west-1.amazonaws.com', Authorization: 'old', 'X-Amz-Date': '19990101T000000Z', Date: 'yesterday' }, body: '{}' });
    const ours = signRequest(req, { service: 'dynamodb', region: 'eu-west-1', credentials: creds, applyChecksum: false, signingDate: date });
    const theirs = await smithy('dynamodb', creds, true, false).sign(new HttpRequest({ ...req, headers: { ...req.headers } }), { signingDate: date });
    expect(ours.headers).toEqual(theirs.headers);
    expect(ours.headers['x-amz-date']).toBe('20261124T203005Z');
  });

  it.each([
    ['without a session token', creds],
    ['with a session token', session],
  ])('presigns as @smithy/signature-v4 does (%s): x-amz-* headers hoisted, content type unsigned', async (_, credentials) => {
    const req = request({ method: 'PUT', hostname: 'b.s3.eu-west-1.amazonaws.com', path: '/uploads/k%20v.json', query: { 'x-id': 'PutObject' }, headers: { host: 'b.s3.eu-west-1.amazonaws.com', 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', 'content-type': 'application/json' } });
    const options = { expiresIn: 900, unsignableHeaders: new Set(['content-type']), unhoistableHeaders: new Set<string>() };
    const ours = presignRequest(req, { service: 's3', region: 'eu-west-1', credentials, uriEscapePath: false, signingDate: date }, options);
    const theirs = await smithy('s3', credentials, false, true).presign(new HttpRequest({ ...req, headers: { ...req.headers }, query: { ...req.query } }), { ...options, signingDate: date });
    expect(ours.query).toEqual(theirs.query);
    expect(ours.headers).toEqual(theirs.headers);
    expect(formatUrl(ours)).toBe(`https://b.s3.eu-west-1.amazonaws.com/uploads/k%20v.json?${queryString(theirs.query as Record<string, string>)}`);
  });

  it('refuses a presigned URL valid for more than a week', () => {
    const req = request({ method: 'GET', path: '/k' });
    expect(() => presignRequest(req, { service: 's3', region: 'eu-west-1', credentials: creds }, { expiresIn: 7 * 24 * 3600 + 1 })).toThrow(/less than one week/);
  });

  it('names the endpoint domain of a region (the China regions have their own)', () => {
    expect(['eu-west-1', 'us-gov-west-1', 'cn-north-1', 'cn-northwest-1'].map(dnsSuffix)).toEqual(['amazonaws.com', 'amazonaws.com', 'amazonaws.com.cn', 'amazonaws.com.cn']);
  });

  it('encodes as RFC 3986 wants (the characters encodeURIComponent leaves)', () => {
    expect(escapeUri("a b!'()*~._-é/")).toBe('a%20b%21%27%28%29%2A~._-%C3%A9%2F');
  });
});
