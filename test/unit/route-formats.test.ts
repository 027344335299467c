import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { routeFormats } from '../../shared/schemas/route-formats.js';

type FormatDef = { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
const original = fullFormats as unknown as Record<string, FormatDef | ((s: string) => boolean)>;
const URIS = [
  'https://example.com/a',
  'http://127.0.0.1:8080/x?y=1#z',
  'urn:isbn:0451450523',
  'mailto:a@b.c',
  's3://bucket/key',
  '/relative/path',
  'example.com',
  'http://[::1]/',
  'http://exa mple.com',
  '',
  'https://例え.jp/',
  'ftp://user:pw@host/%zz',
];

const VALUES = [
  '2026-11-24T10:31:42.657Z',
  '2026-11-24T10:31:42Z',
  '2026-11-24t10:31:42z',
  '2026-11-24 10:31:42+01:00',
  '2026-11-24T10:31:42+0100',
  '2026-11-24T10:31:42',
  '2026-02-29T00:00:00Z',
  '2024-02-29T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '1990-12-31T23:59:60Z',
  '1990-12-31T15:59:60-08:00',
  '1990-12-31T23:59:61Z',
  '2026-11-24T24:00:00Z',
  '2026-11-24T10:60:00Z',
  '2026-11-24T10:31:42+24:00',
  '2026-11-24',
  '2026-11-24TT10:31:42Z',
  '',
  'not a date',
  '2026-11-24T10:31:42.123456789+05:30',
];

describe('formats of the precompiled route validators', () => {
  it('uri validates exactly as ajv-formats does', () => {
    const ours = routeFormats.uri as (s: string) => boolean;
    const theirs = original.uri as (s: string) => boolean;
    for (const v of [...URIS, ...VALUES]) expect(ours(v), JSON.stringify(v)).toBe(theirs(v));
  });

  it.each(['date-time', 'date'])('%s validates and compares exactly as ajv-formats does', (name) => {
    const ours = routeFormats[name] as FormatDef;
    const theirs = original[name] as FormatDef;
    for (const v of [...VALUES, ...VALUES.map((x) => x.slice(0, 10))]) {
      expect(ours.validate(v), `${name} ${JSON.stringify(v)}`).toBe(theirs.validate(v));
      for (const w of VALUES.slice(0, 6)) expect(ours.compare(v, w), `${v} vs ${w}`).toBe(theirs.compare(v, w));
    }
  });
});
