import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ENV } from '../../../config/env.js';

/**
 * The network guard (DESIGN.md §10): which addresses an agent call may connect to.
 *
 * Always refused: link-local (169.254.0.0/16, fe80::/10: every cloud metadata address),
 * 0.0.0.0/8 and ::, multicast, the reserved 240.0.0.0/4 (with broadcast), and the IPv4-mapped
 * IPv6 forms of all of these (`::ffff:169.254.169.254`, also written `::ffff:a9fe:a9fe`).
 * Refused unless private networks are allowed: loopback (127.0.0.0/8, ::1), RFC 1918,
 * 100.64.0.0/10 (shared address space) and fc00::/7 (unique local).
 */

export type AddressCheck = { ok: true } | { ok: false; kind: string };

interface Range {
  bytes: number[];
  prefix: number;
  kind: string;
  always: boolean;
}

const v4 = (cidr: string, kind: string, always: boolean): Range => {
  const [addr, prefix] = cidr.split('/') as [string, string];
  return { bytes: parseIpv4(addr)!, prefix: Number(prefix), kind, always };
};
const v6 = (cidr: string, kind: string, always: boolean): Range => {
  const [addr, prefix] = cidr.split('/') as [string, string];
  return { bytes: parseIpv6(addr)!, prefix: Number(prefix), kind, always };
};

const IPV4_RANGES: Range[] = [
  v4('0.0.0.0/8', 'unspecified', true),
  v4('169.254.0.0/16', 'link-local', true),
  v4('224.0.0.0/4', 'multicast', true),
  v4('240.0.0.0/4', 'reserved', true),
  v4('127.0.0.0/8', 'loopback', false),
  v4('10.0.0.0/8', 'private (RFC 1918)', false),
  v4('172.16.0.0/12', 'private (RFC 1918)', false),
  v4('192.168.0.0/16', 'private (RFC 1918)', false),
  v4('100.64.0.0/10', 'shared address space (RFC 6598)', false),
];

const IPV6_RANGES: Range[] = [
  v6('::/128', 'unspecified', true),
  v6('fe80::/10', 'link-local', true),
  v6('ff00::/8', 'multicast', true),
  v6('::1/128', 'loopback', false),
  v6('fc00::/7', 'unique local', false),
];

/** Checks one IP address literal (IPv4, or IPv6 with or without brackets and zone). */
export function checkAddress(ip: string, allowPrivate: boolean): AddressCheck {
  const text = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const b4 = parseIpv4(text);
  if (b4) return match(b4, IPV4_RANGES, allowPrivate);
  const b6 = parseIpv6(text);
  if (!b6) return { ok: false, kind: 'not an IP address' };
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms reach the IPv4 address.
  const mapped = b6.slice(0, 10).every((b) => b === 0) && b6[10] === 0xff && b6[11] === 0xff;
  const compatible = b6.slice(0, 12).every((b) => b === 0) && !(b6[12] === 0 && b6[13] === 0 && b6[14] === 0 && (b6[15] ?? 0) <= 1);
  if (mapped || compatible) return match(b6.slice(12), IPV4_RANGES, allowPrivate);
  return match(b6, IPV6_RANGES, allowPrivate);
}

function match(bytes: number[], ranges: Range[], allowPrivate: boolean): AddressCheck {
  for (const range of ranges) {
    if (!inRange(bytes, range)) continue;
    if (range.always || !allowPrivate) return { ok: false, kind: range.kind };
    return { ok: true };
  }
  return { ok: true };
}

function inRange(bytes: number[], range: Range): boolean {
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function parseIpv4(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').map(Number);
}

function parseIpv6(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let head = text;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail = parseIpv4(dotted[1]!)!;
    head = text.slice(0, -dotted[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groupsNeeded = 8 - tail.length / 2;
  const [left, right] = head.includes('::') ? (head.split('::') as [string, string]) : [head, undefined];
  const l = left ? left.split(':') : [];
  const r = right ? right.split(':') : [];
  const zeros = right === undefined ? 0 : groupsNeeded - l.length - r.length;
  const groups = [...l, ...Array<string>(Math.max(0, zeros)).fill('0'), ...r];
  if (groups.length !== groupsNeeded) return undefined;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return [...bytes, ...tail];
}

export class AddressNotAllowedError extends Error {}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host (a name or an IP literal) and checks every address it resolves to; the caller
 * connects only to the returned addresses (no second lookup). Throws AddressNotAllowedError when
 * any address is refused; DNS failures reject with the resolver's error.
 */
export async function resolveChecked(host: string, allowPrivate: boolean): Promise<ResolvedAddress[]> {
  const literal = host.replace(/^\[|\]$/g, '');
  const family = isIP(literal);
  const addresses: ResolvedAddress[] = family
    ? [{ address: literal, family: family as 4 | 6 }]
    : (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
  if (addresses.length === 0) throw new Error(`${host} resolved to no address`);
  for (const a of addresses) {
    const check = checkAddress(a.address, allowPrivate);
    if (!check.ok) throw new AddressNotAllowedError(`address not allowed: ${a.address} is ${check.kind}`);
  }
  return addresses;
}

/** AGENT_ALLOW_PRIVATE_NETWORKS=true lets agents on loopback and private networks be called (`npm start` sets it). */
export function privateNetworksAllowed(): boolean {
  return process.env[ENV.agentAllowPrivateNetworks] === 'true';
}
