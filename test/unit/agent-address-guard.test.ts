import { describe, expect, it } from 'vitest';
import { checkAddress } from '../../shared/domain/runs/caller/index.js';

/** [address, kind when private networks are refused (null = allowed), allowed when they are allowed] */
const TABLE: [string, string | null, boolean][] = [
  ['127.0.0.1', 'loopback', true],
  ['127.255.0.9', 'loopback', true],
  ['10.1.2.3', 'private (RFC 1918)', true],
  ['172.16.0.1', 'private (RFC 1918)', true],
  ['172.31.255.255', 'private (RFC 1918)', true],
  ['192.168.1.1', 'private (RFC 1918)', true],
  ['100.64.0.1', 'shared address space (RFC 6598)', true],
  ['100.127.255.254', 'shared address space (RFC 6598)', true],
  ['169.254.169.254', 'link-local', false],
  ['169.254.0.1', 'link-local', false],
  ['0.0.0.0', 'unspecified', false],
  ['0.1.2.3', 'unspecified', false],
  ['224.0.0.1', 'multicast', false],
  ['239.255.255.250', 'multicast', false],
  ['255.255.255.255', 'reserved', false],
  ['::1', 'loopback', true],
  ['::', 'unspecified', false],
  ['fe80::1', 'link-local', false],
  ['febf::1', 'link-local', false],
  ['fc00::1', 'unique local', true],
  ['fd12:3456::1', 'unique local', true],
  ['ff02::1', 'multicast', false],
  ['::ffff:169.254.169.254', 'link-local', false],
  ['::ffff:a9fe:a9fe', 'link-local', false],
  ['::ffff:127.0.0.1', 'loopback', true],
  ['::ffff:7f00:1', 'loopback', true],
  ['::ffff:10.0.0.1', 'private (RFC 1918)', true],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local', false],
  ['::127.0.0.1', 'loopback', true],
  ['[::1]', 'loopback', true],
  ['fe80::1%eth0', 'link-local', false],
  // public addresses
  ['93.184.216.34', null, true],
  ['8.8.8.8', null, true],
  ['172.32.0.1', null, true],
  ['100.128.0.1', null, true],
  ['2606:4700::1111', null, true],
  ['2001:4860:4860::8888', null, true],
  ['::ffff:93.184.216.34', null, true],
];

describe('network guard', () => {
  it.each(TABLE)('%s', (ip, kind, allowedWhenPrivateAllowed) => {
    expect(checkAddress(ip, false)).toEqual(kind === null ? { ok: true } : { ok: false, kind });
    expect(checkAddress(ip, true).ok).toBe(allowedWhenPrivateAllowed);
  });

  it('a name is not an address', () => {
    expect(checkAddress('localhost', true)).toEqual({ ok: false, kind: 'not an IP address' });
  });
});

describe('names are resolved and every address checked', () => {
  it('localhost resolves to loopback: refused unless private networks are allowed', async () => {
    const { resolveChecked, AddressNotAllowedError } = await import('../../shared/domain/runs/caller/index.js');
    await expect(resolveChecked('localhost', false)).rejects.toThrow(AddressNotAllowedError);
    await expect(resolveChecked('localhost', false)).rejects.toThrow(
      /^address not allowed: (127\.0\.0\.1|::1) is loopback$/,
    );
    const allowed = await resolveChecked('localhost', true);
    expect(allowed.length).toBeGreaterThan(0);
    await expect(resolveChecked('[::ffff:169.254.169.254]', true)).rejects.toThrow(
      'address not allowed: ::ffff:169.254.169.254 is link-local',
    );
  });
});
