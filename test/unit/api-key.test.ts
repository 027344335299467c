import { describe, expect, it } from 'vitest';
import { crc32 as zlibCrc32 } from 'node:zlib';
import {
  BASE62,
  checksumOf,
  crc32,
  generateApiKey,
  hashKeyBody,
  keyFromAuthorizationHeader,
  parseApiKey,
  toBase62,
} from '../../shared/auth/api-key.js';

describe('API key format', () => {
  it('computes CRC-32 exactly as zlib does', () => {
    for (const text of ['', 'a', 'abc', '123456789', 'x'.repeat(34)]) expect(crc32(text)).toBe(zlibCrc32(text));
    expect(crc32('123456789')).toBe(0xcbf43926); // the standard check value
  });

  it('writes the checksum in base62 big-endian, left-padded to 6 characters', () => {
    expect(toBase62(0, 6)).toBe('000000');
    expect(toBase62(61, 6)).toBe('00000z');
    expect(toBase62(62, 6)).toBe('000010');
    expect(toBase62(0xffffffff, 6)).toBe('4gfFC3');
    expect(BASE62).toHaveLength(62);
  });

  it('generates keys that parse in the current and the legacy format, naming the same body', () => {
    const { key, body, hash, last4 } = generateApiKey();
    expect(key).toMatch(/^evk_[0-9A-Za-z]{40}$/);
    expect(body.slice(34)).toBe(checksumOf(body.slice(0, 34)));
    expect(last4).toBe(body.slice(-4));
    expect(hash).toBe(hashKeyBody(body));
    const current = parseApiKey(key);
    const legacy = parseApiKey(key.replace('evk_', 'evk-'));
    expect(current).toEqual({ ok: true, body, format: 'current' });
    expect(legacy).toEqual({ ok: true, body, format: 'legacy' });
  });

  it('refuses a wrong prefix, length, alphabet or checksum', () => {
    const { body } = generateApiKey();
    expect(parseApiKey(`xyz_${body}`)).toMatchObject({ ok: false, reason: 'wrong prefix' });
    expect(parseApiKey(`evk_${body.slice(1)}`)).toMatchObject({ ok: false, reason: 'wrong length' });
    expect(parseApiKey(`evk_${body}0`)).toMatchObject({ ok: false, reason: 'wrong length' });
    expect(parseApiKey(`evk_${body.slice(0, 39)}!`)).toMatchObject({ ok: false, reason: 'invalid character' });
    const flipped = body[0] === 'a' ? `b${body.slice(1)}` : `a${body.slice(1)}`;
    expect(parseApiKey(`evk_${flipped}`)).toMatchObject({ ok: false, reason: 'bad checksum' });
    expect(parseApiKey('evk')).toMatchObject({ ok: false, reason: 'no separator' });
  });

  it('reads the key from a Bearer header only', () => {
    expect(keyFromAuthorizationHeader('Bearer evk_abc')).toBe('evk_abc');
    expect(keyFromAuthorizationHeader('bearer   evk_abc ')).toBe('evk_abc');
    expect(keyFromAuthorizationHeader('Basic evk_abc')).toBeUndefined();
    expect(keyFromAuthorizationHeader('evk_abc')).toBeUndefined();
    expect(keyFromAuthorizationHeader(undefined)).toBeUndefined();
  });
});
