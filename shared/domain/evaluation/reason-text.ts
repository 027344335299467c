/**
 * What the deterministic metrics' reasons are made of: finding personal data and secret-looking
 * values, masking them (never a whole one in a reason), excerpts around a position, short lists,
 * and a plain explanation of why a text is not JSON.
 */

export type PiiKind = 'e-mail address' | 'phone number' | 'card number';

/** A match in a text, by UTF-16 offsets (`start` inclusive, `end` exclusive). */
export interface TextMatch<K extends string = string> {
  kind: K;
  start: number;
  end: number;
}

export const REASON_MAX_CHARS = 500;

// Starts only where a run of local-part characters starts: the same matches, in linear time.
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;
const PHONE = /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\b\d{2,4}[\s.-])\d{3,4}[\s.-]\d{4}\b|\+\d{8,15}\b/g;
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
/** Runs of 20+ word characters: those mixing letters and digits look like tokens, keys or passwords. */
const LONG_WORD = /[\w-]{20,}/g;
const looksSecret = (word: string) => /\d/.test(word) && /[A-Za-z]/.test(word);

/** Luhn checksum of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

const overlaps = (a: TextMatch, b: TextMatch) => a.start < b.end && b.start < a.end;

/**
 * Every e-mail address, Luhn-valid card number and phone number in the text, in text order. A
 * phone-shaped run inside a card number or an e-mail address is not counted twice.
 */
export function findPii(text: string): TextMatch<PiiKind>[] {
  const found: TextMatch<PiiKind>[] = [];
  for (const m of text.matchAll(EMAIL))
    found.push({ kind: 'e-mail address', start: m.index, end: m.index + m[0].length });
  for (const m of text.matchAll(CARD)) {
    if (luhnValid(m[0].replace(/[ -]/g, '')))
      found.push({ kind: 'card number', start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(PHONE)) {
    const match: TextMatch<PiiKind> = { kind: 'phone number', start: m.index, end: m.index + m[0].length };
    if (!found.some((f) => overlaps(f, match))) found.push(match);
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * Keeps the first 2 and last 2 characters of a value and every separator (space, punctuation);
 * each other letter or digit becomes `•`. The number of characters does not change.
 */
export function maskValue(value: string): string {
  const cps = Array.from(value);
  const keep = cps.length > 6 ? 2 : 0;
  return cps.map((c, i) => (i < keep || i >= cps.length - keep || !/[\p{L}\p{N}]/u.test(c) ? c : '•')).join('');
}

/** The text with every PII match and secret-looking token masked (same number of characters). */
export function maskSensitive(text: string): string {
  const spans: TextMatch[] = findPii(text);
  for (const m of text.matchAll(LONG_WORD)) {
    if (!looksSecret(m[0])) continue;
    const s = { kind: 'secret', start: m.index, end: m.index + m[0].length };
    if (!spans.some((f) => overlaps(f, s))) spans.push(s);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + maskValue(text.slice(s.start, s.end));
    at = s.end;
  }
  return out + text.slice(at);
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Code-point length of a text (a lone surrogate counts as one, as Array.from counts it). A loop
 * rather than Array.from: no array of a 250,000-character text, and a time budget can stop it.
 */
export function charCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}

/** The 1-based character (code point) number of a UTF-16 offset. */
export const charNumberAt = (text: string, offset: number): number => charCount(text.slice(0, offset)) + 1;

/** The UTF-16 offset `count` code points after (count > 0) or before (count < 0) `offset`, clamped to the text. */
export function stepChars(text: string, offset: number, count: number): number {
  let at = offset;
  for (let k = 0; k < Math.abs(count); k++) {
    if (count > 0) {
      if (at >= text.length) break;
      at += isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? 2 : 1;
    } else {
      if (at <= 0) break;
      at -= isLow(text.charCodeAt(at - 1)) && at >= 2 && isHigh(text.charCodeAt(at - 2)) ? 2 : 1;
    }
  }
  return at;
}

/**
 * A quoted excerpt of `text` around character index `index` (0-based, code points), masked,
 * `radius` characters each side, with `…` where it was cut.
 */
export function excerpt(text: string, index: number, radius = 20): string {
  return excerptAt(text, stepChars(text, 0, index), radius);
}

/**
 * As excerpt, around a UTF-16 offset; with `span` (UTF-16 units from the offset, a match), the
 * excerpt runs `radius` characters past the match's end (a match shows at most 60 characters).
 */
export function excerptAt(text: string, offset: number, radius = 20, span = 0): string {
  // Masks a wider window than it shows, so a value crossing the excerpt's edge is seen whole.
  const margin = 200;
  const shown = Math.min(charCount(text.slice(offset, offset + span)), 60);
  const windowFrom = stepChars(text, offset, -(radius + margin));
  const windowTo = stepChars(text, offset, shown + radius + margin);
  const cps = Array.from(maskSensitive(text.slice(windowFrom, windowTo)));
  const before = charCount(text.slice(windowFrom, offset));
  const from = Math.max(0, before - radius);
  const to = Math.min(cps.length, before + shown + radius);
  const cutStart = windowFrom > 0 || from > 0;
  const cutEnd = windowTo < text.length || to < cps.length;
  return JSON.stringify(`${cutStart ? '…' : ''}${cps.slice(from, to).join('')}${cutEnd ? '…' : ''}`);
}

/** A value as JSON, masked, cut to `max` characters. */
export function shortJson(value: unknown, max = 40): string {
  const cut = (text: string, room: number) => {
    const cps = Array.from(text);
    return cps.length <= room ? text : `${cps.slice(0, room - 1).join('')}…`;
  };
  // Only the head can show: masking it (with room for a value crossing the cut) is enough, and
  // keeps a 250,000-character value from being scanned whole.
  const head = (text: string) => (text.length > 2 * (max + 200) ? text.slice(0, 2 * (max + 200)) : text);
  // A string keeps its quotes when cut, so it still reads as a string.
  if (typeof value === 'string') return JSON.stringify(cut(maskSensitive(head(value)), max - 2));
  return cut(maskSensitive(head(JSON.stringify(value) ?? String(value))), max);
}

/** "a, b, c and 4 more". */
export function listOf(items: string[], max = 5): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** A reason cut to REASON_MAX_CHARS characters. */
export function capReason(reason: string): string {
  const cps = Array.from(reason);
  return cps.length <= REASON_MAX_CHARS ? reason : `${cps.slice(0, REASON_MAX_CHARS - 1).join('')}…`;
}

/** A number as a reason prints it: at most 3 decimals. */
export const num = (x: number): string => String(Number(x.toFixed(3)));

/** One character as a reason shows it: quoted, control characters escaped. */
const showChar = (c: string) => JSON.stringify(c);

/**
 * Why `text` is not JSON: the first syntax error as "unexpected … at character N (expected …)",
 * or undefined when it finds none (the text is JSON, or nested too deep to walk here). Quotes
 * nothing of the text but the one character found.
 */
export function jsonSyntaxError(text: string): string | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  class Stop extends Error {}
  class TooDeep extends Error {}
  const fail = (expected: string): never => {
    const found = i >= text.length ? 'end of input' : showChar(String.fromCodePoint(text.codePointAt(i)!));
    throw new Stop(`unexpected ${found} at character ${charNumberAt(text, i)} (expected ${expected})`);
  };
  const literal = (word: string) => {
    for (const c of word) {
      if (text[i] !== c) fail(`"${word}"`);
      i++;
    }
  };
  const digits = (what: string) => {
    if (!/[0-9]/.test(text[i] ?? '')) fail(what);
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail('a closing quote');
      const c = text.charCodeAt(i);
      if (c === 0x22) return void i++;
      if (c < 0x20) fail('a character or an escape (control characters must be escaped)');
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail('4 hex digits after \\u');
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u');
      }
      i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new TooDeep();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail('a double-quoted property name');
        string();
        ws();
        if (text[i] !== ':') fail('":" after a property name');
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') return void i++;
        fail('"," or "}"');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') return void i++;
        fail('"," or "]"');
      }
    }
    if (c === '"') return void string();
    if (c === 't') return void literal('true');
    if (c === 'f') return void literal('false');
    if (c === 'n') return void literal('null');
    if (c === '-' || /[0-9]/.test(c ?? '')) {
      if (c === '-') i++;
      if (text[i] === '0') i++;
      else digits('a digit');
      if (text[i] === '.') {
        i++;
        digits('a digit after the decimal point');
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++;
        if (text[i] === '+' || text[i] === '-') i++;
        digits('a digit in the exponent');
      }
      return;
    }
    fail('a JSON value');
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail('nothing after the JSON value');
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.message;
    if (error instanceof TooDeep) return undefined; // not explained here: the caller says the parser refused it
    throw error;
  }
}

/** Why JSON.parse refused `text`, in words that never quote more than one of its characters. */
export function notJsonBecause(text: string): string {
  return jsonSyntaxError(text) ?? 'the JSON parser refused it';
}
