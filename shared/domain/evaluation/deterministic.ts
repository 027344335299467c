/**
 * The deterministic predefined metrics (DESIGN.md §6), as pure functions of the evaluation
 * parameter values. Each returns a score in [0, 1] or throws MetricInputError (the evaluation
 * then FAILS with that message).
 */
export class MetricInputError extends Error {}

const chars = (s: string) => Array.from(s.normalize('NFC'));

/** Levenshtein distance over Unicode code points. */
export function levenshtein(a: string, b: string): number {
  const x = chars(a);
  const y = chars(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length]!;
}

/** 1 − normalised Levenshtein distance (distance / length of the longer string); two empty strings → 1. */
export function textSimilarity(output: string, expected: string): number {
  const longest = Math.max(chars(output).length, chars(expected).length);
  return longest === 0 ? 1 : 1 - levenshtein(output, expected) / longest;
}

export function textMatch(output: string, expected: string): number {
  return textSimilarity(output, expected) > 0.85 ? 1 : 0;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MetricInputError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MetricInputError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Deep, type-strict equality (1 ≠ "1", key order ignored, array order kept). */
export function deepEqual(a: unknown, b: unknown, normalise?: (s: string) => string): boolean {
  if (typeof a === 'string' && typeof b === 'string') return normalise ? normalise(a) === normalise(b) : a === b;
  if (typeof a !== typeof b) return false;
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i], normalise));
  }
  if (typeof a === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = Object.keys(ao);
    if (keys.length !== Object.keys(bo).length) return false;
    return keys.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k], normalise));
  }
  return a === b;
}

/** Case- and accent-insensitive form of a string. */
export function foldCaseAndAccents(s: string): string {
  return s.normalize('NFD').replace(/\p{M}+/gu, '').toLocaleLowerCase('en').normalize('NFC');
}

/** 1 − share of the expected object's top-level keys whose values differ in the output; `{}` expected → 1. */
export function jsonFieldMatch(output: string, expected: string, normalised = false): number {
  const exp = asObject(parseJson(expected, 'expected_output'), 'expected_output');
  const out = asObject(parseJson(output, 'actual_output'), 'actual_output');
  const keys = Object.keys(exp);
  if (keys.length === 0) return 1;
  const differing = keys.filter((k) => !Object.prototype.hasOwnProperty.call(out, k) || !deepEqual(out[k], exp[k], normalised ? foldCaseAndAccents : undefined));
  return 1 - differing.length / keys.length;
}

type Box = [number, number, number, number];

function boxesOf(text: string, what: string): Box[] {
  const value = parseJson(text, what);
  const isBox = (v: unknown): v is Box => Array.isArray(v) && v.length === 4 && v.every((n) => typeof n === 'number' && Number.isFinite(n));
  const list = isBox(value) ? [value] : Array.isArray(value) && value.every(isBox) ? (value as Box[]) : undefined;
  if (!list) throw new MetricInputError(`${what} must be a box [x1, y1, x2, y2] or a list of boxes`);
  for (const [x1, y1, x2, y2] of list) if (x2 < x1 || y2 < y1) throw new MetricInputError(`${what} has a box with x2 < x1 or y2 < y1`);
  return list;
}

export function iouOfBoxes(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = w * h;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union <= 0 ? 0 : inter / union;
}

/** The best intersection-over-union between any output box and any expected box. */
export function iou(output: string, expected: string): number {
  const outs = boxesOf(output, 'actual_output');
  const exps = boxesOf(expected, 'expected_output');
  let best = 0;
  for (const o of outs) for (const e of exps) best = Math.max(best, iouOfBoxes(o, e));
  return best;
}

export function spatialMatch(output: string, expected: string): number {
  return iou(output, expected) >= 0.5 ? 1 : 0;
}

/** Tool names compare trimmed, case-insensitive, with spaces and hyphens read as underscores. */
export function normaliseToolName(name: string): string {
  return name.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

export function toolCorrectness(used: string[], expected: string[]): number {
  const a = new Set(used.map(normaliseToolName));
  const b = new Set(expected.map(normaliseToolName));
  return a.size === b.size && [...a].every((t) => b.has(t)) ? 1 : 0;
}

/** Lower-cased word tokens (letters and digits, Unicode-aware), as BLEU and ROUGE compare them. */
export function tokens(text: string): string[] {
  return text.toLocaleLowerCase('en').match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

function ngrams(words: string[], n: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + n <= words.length; i++) {
    const key = words.slice(i, i + n).join('\u0000');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * Sentence BLEU-4 (Papineni et al., 2002): geometric mean of clipped n-gram precisions for
 * n = 1..4 with uniform weights 1/4, times the brevity penalty BP = 1 if c > r else e^(1 − r/c).
 * No smoothing: a zero precision gives 0.
 */
export function bleu(output: string, expected: string): number {
  const cand = tokens(output);
  const ref = tokens(expected);
  if (cand.length === 0 || ref.length === 0) return 0;
  let logSum = 0;
  for (let n = 1; n <= 4; n++) {
    const c = ngrams(cand, n);
    const r = ngrams(ref, n);
    let matched = 0;
    let total = 0;
    for (const [gram, count] of c) {
      total += count;
      matched += Math.min(count, r.get(gram) ?? 0);
    }
    if (total === 0 || matched === 0) return 0;
    logSum += 0.25 * Math.log(matched / total);
  }
  const bp = cand.length > ref.length ? 1 : Math.exp(1 - ref.length / cand.length);
  return bp * Math.exp(logSum);
}

function lcs(a: string[], b: string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = [0];
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}

/** ROUGE-L F1 on words (Lin, 2004): P = LCS/|candidate|, R = LCS/|reference|, F = 2PR/(P+R). */
export function rougeL(output: string, expected: string): number {
  const cand = tokens(output);
  const ref = tokens(expected);
  if (cand.length === 0 || ref.length === 0) return cand.length === ref.length ? 1 : 0;
  const l = lcs(cand, ref);
  if (l === 0) return 0;
  const p = l / cand.length;
  const r = l / ref.length;
  return (2 * p * r) / (p + r);
}

export function isJson(output: string): number {
  try {
    JSON.parse(output);
    return 1;
  } catch {
    return 0;
  }
}

export function nonEmptyOutput(output: string): number {
  return output.trim().length > 0 ? 1 : 0;
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/u;
const PHONE = /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\b\d{2,4}[\s.-])\d{3,4}[\s.-]\d{4}\b|\+\d{8,15}\b/;

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

export function hasCardNumber(text: string): boolean {
  const candidates = text.match(/\b\d(?:[ -]?\d){12,18}\b/g) ?? [];
  return candidates.some((c) => luhnValid(c.replace(/[ -]/g, '')));
}

/** 1 when the output holds no e-mail address, phone number or Luhn-valid card number. */
export function noPii(output: string): number {
  if (EMAIL.test(output)) return 0;
  if (hasCardNumber(output)) return 0;
  if (PHONE.test(output)) return 0;
  return 1;
}

const asText = (v: unknown, name: string): string => {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) throw new MetricInputError(`${name} is missing`);
  return JSON.stringify(v);
};
const asList = (v: unknown, name: string): string[] => {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  throw new MetricInputError(`${name} must be a list of names`);
};

/** The scoring function of each deterministic predefined metric, by name. */
export const DETERMINISTIC_METRICS: Record<string, (p: Record<string, unknown>) => number> = {
  text_similarity: (p) => textSimilarity(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  text_match: (p) => textMatch(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  json_field_match: (p) => jsonFieldMatch(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  json_field_match_normalized: (p) => jsonFieldMatch(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output'), true),
  iou: (p) => iou(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  spatial_match: (p) => spatialMatch(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  tool_correctness: (p) => toolCorrectness(asList(p.tools_used ?? [], 'tools_used'), asList(p.expected_tools, 'expected_tools')),
  bleu: (p) => bleu(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  rouge: (p) => rougeL(asText(p.actual_output, 'actual_output'), asText(p.expected_output, 'expected_output')),
  is_json: (p) => isJson(asText(p.actual_output, 'actual_output')),
  non_empty_output: (p) => nonEmptyOutput(asText(p.actual_output ?? '', 'actual_output')),
  no_pii: (p) => noPii(asText(p.actual_output ?? '', 'actual_output')),
};
