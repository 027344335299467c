import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalStorageUri } from '../../shared/storage/uri.js';
import { safeFileName } from '../../shared/storage/names.js';

const c = (u: string, local: string[] = []) => canonicalStorageUri(u, 'uri', local);

describe('canonical storage URIs', () => {
  it.each([
    ['s3://bucket/path/to/file.csv', 's3://bucket/path/to/file.csv'],
    ['https://bucket.s3.amazonaws.com/path/file.csv', 's3://bucket/path/file.csv'],
    [
      'https://my.bucket.s3.eu-west-1.amazonaws.com/a/b.csv?X-Amz-Signature=abc&X-Amz-Credential=x',
      's3://my.bucket/a/b.csv',
    ],
    ['https://bucket.s3-us-west-2.amazonaws.com/a%20b.csv', 's3://bucket/a b.csv'],
    ['https://s3.amazonaws.com/bucket/key.csv', 's3://bucket/key.csv'],
    ['https://s3.eu-central-1.amazonaws.com/bucket/dir/key.csv?X-Amz-Signature=1', 's3://bucket/dir/key.csv'],
    [
      'https://acct.blob.core.windows.net/container/dir/file.wav?sv=2022&sig=SECRET',
      'https://acct.blob.core.windows.net/container/dir/file.wav',
    ],
  ])('%s → %s', (input, expected) => {
    expect(c(input)).toBe(expected);
  });

  it('reads path-style URLs of the local emulator as S3', () => {
    expect(c('http://127.0.0.1:4569/bucket/orgs/o/f.csv?X-Amz-Signature=1', ['http://127.0.0.1:4569'])).toBe(
      's3://bucket/orgs/o/f.csv',
    );
    expect(() => c('http://127.0.0.1:4569/bucket/f.csv')).toThrow();
  });

  it.each([
    'ftp://host/file',
    'not a uri',
    'https://example.com/file.csv',
    's3://bucket',
    's3://bucket/',
    'https://acct.blob.core.windows.net/container',
  ])('refuses %s', (input) => {
    expect(() => c(input)).toThrow(/^uri must be an s3:\/\/ URI/);
  });

  const segment = fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
  const key = fc.array(segment, { minLength: 1, maxLength: 4 }).map((p) => p.join('/'));
  // S3 bucket names never start with `xn--` (a punycode label the URL parser may refuse).
  const bucket = fc.stringMatching(/^[a-z0-9][a-z0-9-]{2,20}$/).filter((b) => !b.startsWith('xn--'));
  const query = fc.array(
    fc.tuple(
      fc.constantFrom('X-Amz-Signature', 'X-Amz-Credential', 'sig', 'sv', 'se', 'X-Amz-Security-Token'),
      fc.stringMatching(/^[A-Za-z0-9]{1,16}$/),
    ),
    { maxLength: 4 },
  );
  const qs = (q: [string, string][]) => (q.length ? `?${q.map(([k, v]) => `${k}=${v}`).join('&')}` : '');
  const anyUri = fc.oneof(
    fc.tuple(bucket, key).map(([b, k]) => `s3://${b}/${k}`),
    fc.tuple(bucket, key, query).map(([b, k, q]) => `https://${b}.s3.amazonaws.com/${k}${qs(q)}`),
    fc.tuple(bucket, key, query).map(([b, k, q]) => `https://s3.us-east-1.amazonaws.com/${b}/${k}${qs(q)}`),
    fc
      .tuple(fc.stringMatching(/^[a-z0-9]{3,24}$/), bucket, key, query)
      .map(([a, b, k, q]) => `https://${a}.blob.core.windows.net/${b}/${k}${qs(q)}`),
  );

  it('is idempotent and never keeps a signature or SAS parameter (property)', () => {
    fc.assert(
      fc.property(anyUri, (uri) => {
        const once = c(uri);
        expect(c(once)).toBe(once);
        expect(once).not.toMatch(/[?&](X-Amz-|sig=|sv=|se=)/);
        expect(once).not.toContain('?');
      }),
      { numRuns: 500 },
    );
  });
});

describe('upload file names', () => {
  it('sanitises and refuses what cannot be a key segment', () => {
    expect(safeFileName('my data (1).csv')).toBe('my_data_1_.csv');
    expect(() => safeFileName('a/b.csv')).toThrow('fileName must not contain path separators');
    expect(() => safeFileName('a\\b.csv')).toThrow('fileName must not contain path separators');
    expect(() => safeFileName('..')).toThrow("fileName must not contain '..'");
    expect(() => safeFileName('x'.repeat(256))).toThrow('fileName must be at most 255 bytes');
    expect(() => safeFileName('   ')).toThrow();
  });
});
