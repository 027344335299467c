import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID: 48-bit millisecond time + 80 random bits, Crockford base32, lexically time-ordered. */
export function ulid(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return time + random;
}

/** Type prefixes of opaque ids. */
export const ID_PREFIX = {
  organization: 'org',
  user: 'usr',
  apiKey: 'key',
  product: 'prod',
  version: 'ver',
  endpointConnection: 'econ',
  phoneConnection: 'phc',
  metric: 'met',
  metricGroup: 'mgrp',
  specification: 'spec',
  test: 'test',
  testCase: 'tcase',
  session: 'sess',
  inferenceResult: 'inf',
  span: 'trace',
  evaluation: 'eval',
  monitor: 'mon',
  run: 'run',
  webhook: 'wh',
  message: 'msg',
  alertRule: 'alr',
  alert: 'alert',
  reviewQueue: 'rq',
  reviewItem: 'rqi',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIX[kind]}_${ulid(now)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
