import { BlockList, isIP } from 'node:net';
import { ENV } from '../config/env.js';

/**
 * The network guard: which addresses an agent call, a connection test or a webhook
 * delivery may connect to. Ranges are decided by node:net's BlockList, not by parsing addresses here.
 *
 * Always refused: link-local (169.254.0.0/16, fe80::/10: every cloud metadata address),
 * 0.0.0.0/8 and ::, multicast (224.0.0.0/4, ff00::/8) and the reserved 240.0.0.0/4 (with broadcast).
 * Refused unless private networks are allowed: loopback (127.0.0.0/8, ::1), RFC 1918,
 * 100.64.0.0/10 (shared address space), 192.0.0.0/24 (IETF protocol assignments),
 * 198.18.0.0/15 (benchmarking) and fc00::/7 (unique local).
 * Every IPv4 range is refused in its IPv4-mapped (`::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`)
 * and deprecated IPv4-compatible (`::169.254.169.254`) IPv6 forms too: they reach the same hosts.
 */

export type AddressCheck = { ok: true } | { ok: false; kind: string };

interface Rule {
  kind: string;
  always: boolean;
  ipv4?: [string, number][];
  ipv6?: [string, number][];
}

/**
 * In order: an address takes the kind of the first rule that holds it. `::` and `::1` come before
 * the IPv4 rules, whose IPv4-compatible forms (::0.0.0.0/104) would otherwise call them 0.0.0.0/8.
 */
const RULES: Rule[] = [
  { kind: 'unspecified', always: true, ipv6: [['::', 128]] },
  { kind: 'loopback', always: false, ipv6: [['::1', 128]] },
  { kind: 'unspecified', always: true, ipv4: [['0.0.0.0', 8]] },
  { kind: 'link-local', always: true, ipv4: [['169.254.0.0', 16]], ipv6: [['fe80::', 10]] },
  { kind: 'multicast', always: true, ipv4: [['224.0.0.0', 4]], ipv6: [['ff00::', 8]] },
  { kind: 'reserved', always: true, ipv4: [['240.0.0.0', 4]] },
  { kind: 'loopback', always: false, ipv4: [['127.0.0.0', 8]] },
  {
    kind: 'private (RFC 1918)',
    always: false,
    ipv4: [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
  },
  { kind: 'shared address space (RFC 6598)', always: false, ipv4: [['100.64.0.0', 10]] },
  { kind: 'IETF protocol assignments (RFC 6890)', always: false, ipv4: [['192.0.0.0', 24]] },
  { kind: 'benchmarking (RFC 2544)', always: false, ipv4: [['198.18.0.0', 15]] },
  { kind: 'unique local', always: false, ipv6: [['fc00::', 7]] },
];

const LISTS = RULES.map((rule) => {
  const list = new BlockList();
  for (const [address, prefix] of rule.ipv4 ?? []) {
    list.addSubnet(address, prefix, 'ipv4');
    // BlockList already matches ::ffff:a.b.c.d against an IPv4 rule; the mapped subnet is added
    // anyway so the guard does not rest on that, the compatible one because BlockList ignores it.
    list.addSubnet(`::ffff:${address}`, 96 + prefix, 'ipv6');
    list.addSubnet(`::${address}`, 96 + prefix, 'ipv6');
  }
  for (const [address, prefix] of rule.ipv6 ?? []) list.addSubnet(address, prefix, 'ipv6');
  return { ...rule, list };
});

/** Checks one IP address literal (IPv4, or IPv6 with or without brackets and zone). */
export function checkAddress(ip: string, allowPrivate: boolean): AddressCheck {
  // BlockList reads neither brackets nor a zone (`fe80::1%eth0`): it would find no rule for them.
  const text = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(text);
  if (family === 0) return { ok: false, kind: 'not an IP address' };
  const rule = LISTS.find((r) => r.list.check(text, family === 4 ? 'ipv4' : 'ipv6'));
  if (!rule || (allowPrivate && !rule.always)) return { ok: true };
  return { ok: false, kind: rule.kind };
}

export class AddressNotAllowedError extends Error {}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Node's resolver, loaded by the first lookup: loading node:dns costs a function about a tenth of its
 * import time (docs/cold-start.md), and the SDK client's first request loads it anyway (Node's net
 * module loads node:dns on its first connection by name), so the cold start pays it once, in the
 * first invocation, as the function's floor does.
 */
let dns: Promise<typeof import('node:dns/promises')> | undefined;
const resolver = () => (dns ??= import('node:dns/promises'));

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
    : (await (await resolver()).lookup(host, { all: true, verbatim: true })).map((a) => ({
        address: a.address,
        family: a.family as 4 | 6,
      }));
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
