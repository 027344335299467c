import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkUrl } from '../../shared/domain/catalog/url-rules.js';
import { checkAddress } from '../../shared/domain/runs/caller/index.js';

/** Kinds refused even when AGENT_ALLOW_PRIVATE_NETWORKS=true. */
const ALWAYS = new Set(['unspecified', 'link-local', 'multicast', 'reserved']);

/**
 * Each range's first and last address, and the neighbours just outside it: [address, kind, or
 * null when the guard lets it through]. A neighbour that is itself in the next range says so.
 */
const IPV4_EDGES: [string, string | null][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', null],
  ['9.255.255.255', null],
  ['10.0.0.0', 'private (RFC 1918)'],
  ['10.255.255.255', 'private (RFC 1918)'],
  ['11.0.0.0', null],
  ['100.63.255.255', null],
  ['100.64.0.0', 'shared address space (RFC 6598)'],
  ['100.127.255.255', 'shared address space (RFC 6598)'],
  ['100.128.0.0', null],
  ['126.255.255.255', null],
  ['127.0.0.0', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', null],
  ['169.253.255.255', null],
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', null],
  ['172.15.255.255', null],
  ['172.16.0.0', 'private (RFC 1918)'],
  ['172.31.255.255', 'private (RFC 1918)'],
  ['172.32.0.0', null],
  ['191.255.255.255', null],
  ['192.0.0.0', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.0.255', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.1.0', null],
  ['192.167.255.255', null],
  ['192.168.0.0', 'private (RFC 1918)'],
  ['192.168.255.255', 'private (RFC 1918)'],
  ['192.169.0.0', null],
  ['198.17.255.255', null],
  ['198.18.0.0', 'benchmarking (RFC 2544)'],
  ['198.19.255.255', 'benchmarking (RFC 2544)'],
  ['198.20.0.0', null],
  ['223.255.255.255', null],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'reserved'],
];

const IPV6_EDGES: [string, string | null][] = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  // The rest of ::/96 is the deprecated IPv4-compatible form: ::2 is 0.0.0.2.
  ['::2', 'unspecified'],
  ['::ffff:ffff', 'reserved'],
  ['::1:0:0', null],
  // Around the IPv4-mapped block ::ffff:0:0/96.
  ['::fffe:ffff:ffff', null],
  ['::ffff:0:0', 'unspecified'],
  ['::ffff:ffff:ffff', 'reserved'],
  ['::1:0:0:0', null],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['fc00::', 'unique local'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique local'],
  ['fe00::', null],
  ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['fe80::', 'link-local'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
  ['fec0::', null],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['ff00::', 'multicast'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
  ['2001:db8::1', null],
  ['64:ff9b::a9fe:a9fe', null], // NAT64 is not a range the guard knows
];

/** The IPv6 spellings of an IPv4 address: mapped (dotted and hex, short and long), and compatible. */
function ipv6Forms(v4: string): string[] {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  const forms = [`::ffff:${v4}`, `::ffff:${hi}:${lo}`, `0:0:0:0:0:ffff:${hi}:${lo}`];
  forms.push(`::FFFF:${hi.toUpperCase()}:${lo}`);
  // ::0.0.0.0 and ::0.0.0.1 are :: and ::1, which are IPv6's own.
  if (a !== 0 || b !== 0 || c !== 0 || d > 1) forms.push(`::${v4}`, `::${hi}:${lo}`);
  return forms;
}

const expectation = (kind: string | null) => (kind === null ? { ok: true } : { ok: false, kind });

describe('network guard ranges (node:net BlockList)', () => {
  it.each(IPV4_EDGES)('%s is %s, in every IPv6 spelling too', (v4, kind) => {
    for (const address of [v4, ...ipv6Forms(v4)]) {
      expect(checkAddress(address, false), address).toEqual(expectation(kind));
      expect(checkAddress(address, true).ok, address).toBe(kind === null || !ALWAYS.has(kind));
    }
  });

  it.each(IPV6_EDGES)('%s is %s', (v6, kind) => {
    for (const address of [v6, `[${v6}]`, v6.toUpperCase()]) {
      expect(checkAddress(address, false), address).toEqual(expectation(kind));
      expect(checkAddress(address, true).ok, address).toBe(kind === null || !ALWAYS.has(kind));
    }
  });

  it('a zone is ignored and a spelling that is not an address is not read as one', () => {
    expect(checkAddress('fe80::a%en0', false)).toEqual({ ok: false, kind: 'link-local' });
    for (const text of ['0x7f.1', '2130706433', '127.1', '::ffff:127.0.0.256', 'example.com', '']) {
      expect(checkAddress(text, true), text).toEqual({ ok: false, kind: 'not an IP address' });
    }
  });
});

describe('URLs: the odd spellings new URL() normalises reach the guard as the address they are', () => {
  afterEach(() => vi.unstubAllEnvs());

  const REFUSED: [string, string, string][] = [
    ['http://2130706433/', '127.0.0.1', 'loopback'],
    ['http://017700000001/', '127.0.0.1', 'loopback'],
    ['http://0x7f000001/', '127.0.0.1', 'loopback'],
    ['http://0x7f.1/', '127.0.0.1', 'loopback'],
    ['http://0177.0.0.1/', '127.0.0.1', 'loopback'],
    ['http://127.1/', '127.0.0.1', 'loopback'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1', 'loopback'],
    ['http://[::127.0.0.1]/', '::7f00:1', 'loopback'],
    ['http://2852039166/', '169.254.169.254', 'link-local'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254', 'link-local'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', 'link-local'],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe', 'link-local'],
    ['http://[FE80::1]/', 'fe80::1', 'link-local'],
    ['http://0/', '0.0.0.0', 'unspecified'],
    ['http://[::]/', '::', 'unspecified'],
    ['http://3232235777/', '192.168.1.1', 'private (RFC 1918)'],
    ['http://0300.0250.0.1/', '192.168.0.1', 'private (RFC 1918)'],
    ['http://100.64.0.1./', '100.64.0.1', 'shared address space (RFC 6598)'],
  ];

  it.each(REFUSED)('%s is %s: %s', (url, address, kind) => {
    vi.stubEnv('AGENT_ALLOW_PRIVATE_NETWORKS', 'false');
    expect(() => checkUrl(url)).toThrow(`url must not point at a refused address: ${address} is ${kind}`);
    vi.stubEnv('AGENT_ALLOW_PRIVATE_NETWORKS', 'true');
    if (ALWAYS.has(kind)) expect(() => checkUrl(url)).toThrow(`${address} is ${kind}`);
    else expect(() => checkUrl(url)).not.toThrow();
  });

  it('public addresses in odd spellings pass', () => {
    vi.stubEnv('AGENT_ALLOW_PRIVATE_NETWORKS', 'false');
    const urls = [
      'http://134744072/',
      'http://0x8.0x8.0x8.0x8/',
      'http://[::ffff:808:808]/',
      'https://[2606:4700::1111]/',
    ];
    for (const url of urls) {
      expect(() => checkUrl(url), url).not.toThrow();
    }
  });
});
