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

/** Each kind of id as a person names it, for messages. */
const KIND_NAME: Record<IdKind, string> = {
  organization: 'organization',
  user: 'user',
  apiKey: 'API key',
  product: 'product',
  version: 'version',
  endpointConnection: 'endpoint connection',
  phoneConnection: 'phone connection',
  metric: 'metric',
  metricGroup: 'metric family',
  specification: 'specification',
  test: 'test',
  testCase: 'test case',
  session: 'session',
  inferenceResult: 'inference result',
  span: 'span',
  evaluation: 'evaluation',
  monitor: 'monitor',
  run: 'run',
  webhook: 'webhook',
  message: 'webhook delivery',
  alertRule: 'alert rule',
  alert: 'alert',
  reviewQueue: 'review queue',
  reviewItem: 'review item',
};

/**
 * When `id` is plainly an id of another kind than `expected` (its prefix says so), what to say:
 * "mgrp_x is a metric family id (mgrp_…); a metric id (met_…) is needed". Undefined otherwise.
 */
export function wrongKindOfId(id: string, expected: string): string | undefined {
  const want = (Object.keys(KIND_NAME) as IdKind[]).find((k) => KIND_NAME[k] === expected);
  if (!want) return undefined;
  const prefix = id.slice(0, id.indexOf('_'));
  const got = (Object.keys(ID_PREFIX) as IdKind[]).find((k) => ID_PREFIX[k] === prefix);
  if (!got || got === want) return undefined;
  return `${id} is ${article(KIND_NAME[got])} id (${ID_PREFIX[got]}_…); ${article(KIND_NAME[want])} id (${ID_PREFIX[want]}_…) is needed`;
}

const article = (noun: string) => `${/^[aeiou]/i.test(noun) && !noun.startsWith('user') ? 'an' : 'a'} ${noun}`;

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIX[kind]}_${ulid(now)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
