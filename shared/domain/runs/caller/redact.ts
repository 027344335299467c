/** Secret redaction: nothing the caller returns, logs or stores carries a credential. */

export const REDACTED = '***';
/** A secret shorter than this is only replaced where a whole value equals it (a short one would garble text). */
const MIN_SUBSTRING_SECRET = 4;

export interface Redactor {
  text(value: string): string;
  headers(headers: Record<string, string>): Record<string, string>;
  /** Every string inside a JSON-like value. */
  deep<T>(value: T): T;
}

/** A redactor for these secret values (and the forms they travel in: base64 BASIC, JSON-escaped, URL-encoded). */
export function redactorFor(secrets: (string | undefined | null)[]): Redactor {
  const exact = new Set<string>();
  for (const s of secrets) if (s) exact.add(s);
  const variants = new Set<string>();
  for (const s of exact) {
    for (const v of [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)])
      if (v.length >= MIN_SUBSTRING_SECRET) variants.add(v);
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...variants].sort((a, b) => b.length - a.length);

  const text = (value: string): string => {
    if (exact.has(value)) return REDACTED;
    let out = value;
    for (const v of ordered) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  };
  const deep = <T>(value: T): T => {
    if (typeof value === 'string') return text(value) as T;
    if (Array.isArray(value)) return value.map((v) => deep(v)) as T;
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v)])) as T;
    }
    return value;
  };
  return {
    text,
    headers: (headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, text(v)])),
    deep,
  };
}

/** Cuts a body to at most `maxBytes` of UTF-8 (whole characters), marking the cut. */
export function cutBody(body: string, maxBytes = 64 * 1024): string {
  if (Buffer.byteLength(body, 'utf8') <= maxBytes) return body;
  const buf = Buffer.from(body, 'utf8').subarray(0, maxBytes);
  // Drop a partial trailing character.
  let text = buf.toString('utf8');
  if (text.endsWith('\uFFFD')) text = text.slice(0, -1);
  return `${text}…[cut at 64 KB]`;
}
