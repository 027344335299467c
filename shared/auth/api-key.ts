import { createHash, randomInt } from 'node:crypto';

/**
 * API key format: `evk_<body>` (current) or `evk-<body>` (legacy); both name the
 * same key. The body is 34 random base62 characters followed by a 6-character checksum: the
 * CRC-32 (IEEE, as zlib) of those 34 characters, written in base62 big-endian, left-padded with `0`.
 */
export const KEY_PREFIX = 'evk';
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 34;
const CHECKSUM_LENGTH = 6;
const BODY_LENGTH = RANDOM_LENGTH + CHECKSUM_LENGTH;
const BODY_PATTERN = /^[0-9A-Za-z]+$/;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, the polynomial and conventions of zlib's crc32). */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

export function checksumOf(random: string): string {
  return toBase62(crc32(random), CHECKSUM_LENGTH);
}

export interface GeneratedKey {
  /** The full key, shown once. */
  key: string;
  /** The body (random part + checksum); only its SHA-256 is stored. */
  body: string;
  hash: string;
  last4: string;
}

export function generateApiKey(): GeneratedKey {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return fromBody(random + checksumOf(random));
}

function fromBody(body: string): GeneratedKey {
  return { key: `${KEY_PREFIX}_${body}`, body, hash: hashKeyBody(body), last4: body.slice(-4) };
}

export function hashKeyBody(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

export type KeyParseResult = { ok: true; body: string; format: 'current' | 'legacy' } | { ok: false; reason: string };

/**
 * Parses a key string (not the header). Checks prefix, separator, length, alphabet and checksum,
 * with no I/O: a malformed key never costs a database read.
 */
export function parseApiKey(key: string): KeyParseResult {
  const sep = key.search(/[_-]/);
  if (sep < 0) return { ok: false, reason: 'no separator' };
  const prefix = key.slice(0, sep);
  const separator = key[sep];
  const body = key.slice(sep + 1);
  if (prefix !== KEY_PREFIX) return { ok: false, reason: 'wrong prefix' };
  if (body.length !== BODY_LENGTH) return { ok: false, reason: 'wrong length' };
  if (!BODY_PATTERN.test(body)) return { ok: false, reason: 'invalid character' };
  const random = body.slice(0, RANDOM_LENGTH);
  if (checksumOf(random) !== body.slice(RANDOM_LENGTH)) return { ok: false, reason: 'bad checksum' };
  return { ok: true, body, format: separator === '_' ? 'current' : 'legacy' };
}

/** Extracts the key from an `Authorization` header value: `Bearer <key>` (scheme case-insensitive). */
export function keyFromAuthorizationHeader(header: string | undefined | null): string | undefined {
  if (!header) return undefined;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Builds a key string from a full key given by an operator (DEMO_API_KEY); throws when malformed. */
export function keyFromString(key: string): GeneratedKey {
  const parsed = parseApiKey(key);
  if (!parsed.ok) throw new Error(`not a valid API key (${parsed.reason})`);
  return fromBody(parsed.body);
}
