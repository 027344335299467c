/**
 * The deterministic predefined metrics, as pure functions of the evaluation
 * parameter values. Each gives a score in [0, 1] and a reason that says what matched or was
 * missing, and where (personal data and secret-looking values masked, at most ~500 characters);
 * or throws MetricInputError (the evaluation then FAILS with that message).
 */
import {
  capReason,
  charCount,
  charNumberAt,
  excerpt,
  findPii,
  listOf,
  maskSensitive,
  maskValue,
  notJsonBecause,
  num,
  shortJson,
} from './reason-text.js';

export { luhnValid } from './reason-text.js';

export class MetricInputError extends Error {}

/** A metric's answer: the score and what it found. */
export interface MetricResult {
  score: number;
  reason: string;
}

/** The score and the reason without the metric's name (the table below, or a check, adds it). */
export interface Finding {
  score: number;
  detail: string;
}

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

/** The distance, the lengths and where the texts first differ, as a reason says them. */
function similarityFinding(output: string, expected: string): { score: number; detail: string; where: string } {
  const out = chars(output);
  const exp = chars(expected);
  const longest = Math.max(out.length, exp.length);
  if (longest === 0) return { score: 1, detail: 'actual_output and expected_output are both empty', where: '' };
  const distance = levenshtein(output, expected);
  if (distance === 0)
    return { score: 1, detail: `actual_output equals expected_output, ${longest} characters`, where: '' };
  let first = 0;
  while (first < out.length && first < exp.length && out[first] === exp[first]) first++;
  const where = `; first difference at character ${first + 1}: expected ${excerpt(exp.join(''), first)}, got ${excerpt(out.join(''), first)}`;
  return {
    score: 1 - distance / longest,
    detail: `Levenshtein distance ${distance} over ${longest} characters`,
    where,
  };
}

function textSimilarityFinding(output: string, expected: string): Finding {
  const f = similarityFinding(output, expected);
  return { score: f.score, detail: `${num(f.score)} (${f.detail})${f.where}` };
}

function textMatchFinding(output: string, expected: string): Finding {
  const f = similarityFinding(output, expected);
  const matched = f.score > 0.85;
  return {
    score: matched ? 1 : 0,
    detail: `similarity ${num(f.score)} ${matched ? '>' : '≤'} 0.85 (${f.detail})${f.where}`,
  };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MetricInputError(`${what} is not valid JSON: ${notJsonBecause(text)}`);
  }
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MetricInputError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Deep, type-strict equality (1 ≠ "1", key order ignored, array order kept). */
export function deepEqual(a: unknown, b: unknown, normalise?: (s: string) => string): boolean {
  return firstDifference(a, b, '', normalise) === undefined;
}

interface Difference {
  path: string;
  /** What differs there, e.g. `expected 12, got "12"`. */
  what: string;
}

const has = (o: object, k: string) => Object.hasOwn(o, k);
/** `path.key`, or `path["odd key"]` when the key is not an identifier. */
export const member = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}${path ? '.' : ''}${key}` : `${path}[${JSON.stringify(key)}]`;
const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** The first place where `got` differs from `expected` (the rules of deepEqual), or undefined. */
function firstDifference(
  got: unknown,
  expected: unknown,
  path: string,
  normalise?: (s: string) => string,
): Difference | undefined {
  const plain = (): Difference => ({ path, what: `expected ${shortJson(expected)}, got ${shortJson(got)}` });
  if (typeof got === 'string' && typeof expected === 'string')
    return (normalise ? normalise(got) === normalise(expected) : got === expected) ? undefined : plain();
  if (typeof got !== typeof expected || got === null || expected === null)
    return got === expected ? undefined : plain();
  if (Array.isArray(got) || Array.isArray(expected)) {
    if (!Array.isArray(got) || !Array.isArray(expected))
      return { path, what: `expected ${typeName(expected)}, got ${typeName(got)}` };
    if (got.length !== expected.length) return { path, what: `expected ${expected.length} items, got ${got.length}` };
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(got[i], expected[i], `${path}[${i}]`, normalise);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof got === 'object') {
    const g = got as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    for (const k of Object.keys(e)) {
      if (!has(g, k)) return { path: member(path, k), what: 'missing' };
      const d = firstDifference(g[k], e[k], member(path, k), normalise);
      if (d) return d;
    }
    const extra = Object.keys(g).find((k) => !has(e, k));
    return extra === undefined ? undefined : { path: member(path, extra), what: 'not expected' };
  }
  return got === expected ? undefined : plain();
}

/** Case- and accent-insensitive form of a string. */
export function foldCaseAndAccents(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLocaleLowerCase('en')
    .normalize('NFC');
}

function jsonFieldFinding(output: string, expected: string, normalised: boolean): Finding {
  const exp = asObject(parseJson(expected, 'expected_output'), 'expected_output');
  const out = asObject(parseJson(output, 'actual_output'), 'actual_output');
  const keys = Object.keys(exp);
  const how = normalised ? ' (strings compared case- and accent-insensitively)' : '';
  if (keys.length === 0) return { score: 1, detail: 'expected_output is {}: no key to compare' };
  const differing: string[] = [];
  for (const k of keys) {
    const name = maskSensitive(JSON.stringify(k));
    if (!has(out, k)) {
      differing.push(`${name} (missing)`);
      continue;
    }
    const d = firstDifference(out[k], exp[k], member('', k), normalised ? foldCaseAndAccents : undefined);
    if (d)
      differing.push(
        d.path === member('', k) ? `${name} (${d.what})` : `${name} (at ${maskSensitive(d.path)}: ${d.what})`,
      );
  }
  const score = 1 - differing.length / keys.length;
  if (differing.length === 0) {
    return {
      score,
      detail: `${keys.length === 1 ? `the expected key ${maskSensitive(JSON.stringify(keys[0]))} matches` : `all ${keys.length} expected keys match`}${how}`,
    };
  }
  return {
    score,
    detail: `${differing.length} of ${keys.length} expected ${keys.length === 1 ? 'key differs' : 'keys differ'}: ${listOf(differing, 4)}${how}`,
  };
}

/** 1 − share of the expected object's top-level keys whose values differ in the output; `{}` expected → 1. */
export function jsonFieldMatch(output: string, expected: string, normalised = false): number {
  return jsonFieldFinding(output, expected, normalised).score;
}

type Box = [number, number, number, number];

function boxesOf(text: string, what: string): Box[] {
  const value = parseJson(text, what);
  const isBox = (v: unknown): v is Box =>
    Array.isArray(v) && v.length === 4 && v.every((n) => typeof n === 'number' && Number.isFinite(n));
  const list = isBox(value) ? [value] : Array.isArray(value) && value.every(isBox) ? (value as Box[]) : undefined;
  if (!list) throw new MetricInputError(`${what} must be a box [x1, y1, x2, y2] or a list of boxes`);
  list.forEach(([x1, y1, x2, y2], i) => {
    if (x2 < x1 || y2 < y1)
      throw new MetricInputError(
        `${what} has a box with x2 < x1 or y2 < y1 (box ${i + 1}: ${JSON.stringify(list[i])})`,
      );
  });
  return list;
}

export function iouOfBoxes(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = w * h;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union <= 0 ? 0 : inter / union;
}

/** The best pair of boxes and its IoU, with the words a reason uses for it. */
function bestBoxes(output: string, expected: string): { best: number; pair: string; counts: string } {
  const outs = boxesOf(output, 'actual_output');
  const exps = boxesOf(expected, 'expected_output');
  let best = 0;
  let at: [number, number] | undefined;
  outs.forEach((o, i) => {
    exps.forEach((e, j) => {
      const v = iouOfBoxes(o, e);
      if (at === undefined || v > best) [best, at] = [v, [i, j]];
    });
  });
  const label = (list: Box[], i: number, what: string) =>
    `${what}${list.length > 1 ? ` box ${i + 1}` : ''} ${JSON.stringify(list[i])}`;
  const counts = outs.length > 1 || exps.length > 1 ? `; ${outs.length} actual and ${exps.length} expected boxes` : '';
  const pair =
    best > 0
      ? `${label(outs, at![0], 'actual_output')} and ${label(exps, at![1], 'expected_output')}`
      : `no actual_output box overlaps ${exps.length > 1 ? 'an expected_output box' : 'the expected_output box'}`;
  return { best, pair, counts };
}

/** The best intersection-over-union between any output box and any expected box. */
export function iou(output: string, expected: string): number {
  return bestBoxes(output, expected).best;
}

export function spatialMatch(output: string, expected: string): number {
  return iou(output, expected) >= 0.5 ? 1 : 0;
}

function iouFinding(output: string, expected: string): Finding {
  const b = bestBoxes(output, expected);
  return { score: b.best, detail: `${num(b.best)} (${b.best > 0 ? 'best pair: ' : ''}${b.pair}${b.counts})` };
}

function spatialMatchFinding(output: string, expected: string): Finding {
  const b = bestBoxes(output, expected);
  const hit = b.best >= 0.5;
  return { score: hit ? 1 : 0, detail: `best IoU ${num(b.best)} ${hit ? '≥' : '<'} 0.5 (${b.pair}${b.counts})` };
}

/** Tool names compare trimmed, case-insensitive, with spaces and hyphens read as underscores. */
export function normaliseToolName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

export function toolCorrectness(used: string[], expected: string[]): number {
  return toolFinding(used, expected).score;
}

function toolFinding(used: string[], expected: string[]): Finding {
  /** The normalised names of a list, each with its first spelling. */
  const byName = (list: string[]) => {
    const m = new Map<string, string>();
    for (const t of list) if (!m.has(normaliseToolName(t))) m.set(normaliseToolName(t), t);
    return m;
  };
  const a = byName(used);
  const b = byName(expected);
  const names = (list: string[]) =>
    listOf(
      list.map((t) => shortJson(t)),
      5,
    );
  const missing = [...b].filter(([k]) => !a.has(k)).map(([, t]) => t);
  const unexpected = [...a].filter(([k]) => !b.has(k)).map(([, t]) => t);
  if (missing.length === 0 && unexpected.length === 0) {
    return {
      score: 1,
      detail:
        b.size === 0 ? 'no tool expected and none used' : `used exactly the expected tools: ${names([...b.values()])}`,
    };
  }
  const parts = [];
  if (missing.length)
    parts.push(
      `missing tool${missing.length > 1 ? 's' : ''} ${names(missing)}${a.size === 0 ? ' (no tool was used)' : ''}`,
    );
  if (unexpected.length) parts.push(`unexpected tool${unexpected.length > 1 ? 's' : ''} ${names(unexpected)}`);
  return { score: 0, detail: parts.join('; ') };
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

/** Words of the reference absent from the candidate, in reference order, as a reason lists them. */
function missingWords(cand: string[], ref: string[]): string {
  const seen = new Set(cand);
  const missing = [...new Set(ref.filter((w) => !seen.has(w)))];
  // A word of 5+ digits may be part of a number someone would rather not see whole.
  const show = (w: string) => JSON.stringify(/\d{5}/.test(w) ? maskValue(w) : maskSensitive(w));
  return missing.length ? `; expected words missing from actual_output: ${listOf(missing.map(show), 6)}` : '';
}

interface BleuParts {
  score: number;
  precisions: { matched: number; total: number }[];
  brevityPenalty: number;
  cand: string[];
  ref: string[];
}

function bleuParts(output: string, expected: string): BleuParts {
  const cand = tokens(output);
  const ref = tokens(expected);
  if (cand.length === 0 || ref.length === 0) return { score: 0, precisions: [], brevityPenalty: 0, cand, ref };
  const precisions = [1, 2, 3, 4].map((n) => {
    const c = ngrams(cand, n);
    const r = ngrams(ref, n);
    let matched = 0;
    let total = 0;
    for (const [gram, count] of c) {
      total += count;
      matched += Math.min(count, r.get(gram) ?? 0);
    }
    return { matched, total };
  });
  const brevityPenalty = cand.length > ref.length ? 1 : Math.exp(1 - ref.length / cand.length);
  if (precisions.some((p) => p.total === 0 || p.matched === 0))
    return { score: 0, precisions, brevityPenalty, cand, ref };
  const logSum = precisions.reduce((s, p) => s + 0.25 * Math.log(p.matched / p.total), 0);
  return { score: brevityPenalty * Math.exp(logSum), precisions, brevityPenalty, cand, ref };
}

/**
 * Sentence BLEU-4 (Papineni et al., 2002): geometric mean of clipped n-gram precisions for
 * n = 1..4 with uniform weights 1/4, times the brevity penalty BP = 1 if c > r else e^(1 − r/c).
 * No smoothing: a zero precision gives 0.
 */
export function bleu(output: string, expected: string): number {
  return bleuParts(output, expected).score;
}

function bleuFinding(output: string, expected: string): Finding {
  const b = bleuParts(output, expected);
  if (b.cand.length === 0) return { score: 0, detail: '0 (actual_output has no words)' };
  if (b.ref.length === 0) return { score: 0, detail: '0 (expected_output has no words)' };
  const precision = b.precisions.map((p) => `${p.matched}/${p.total}`).join(', ');
  const lengths = `${b.cand.length} words against ${b.ref.length} in expected_output`;
  const why =
    b.score > 0
      ? `clipped n-gram precision ${precision} for n = 1–4; brevity penalty ${num(b.brevityPenalty)}: ${lengths}`
      : b.cand.length < 4
        ? `actual_output has fewer than 4 words: ${lengths}`
        : `no shared ${b.precisions.findIndex((p) => p.matched === 0) + 1}-gram: clipped n-gram precision ${precision} for n = 1–4`;
  return { score: b.score, detail: `${num(b.score)} (${why})${missingWords(b.cand, b.ref)}` };
}

function lcs(a: string[], b: string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = [0];
    for (let j = 1; j <= b.length; j++)
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}

function rougeFinding(output: string, expected: string): Finding {
  const cand = tokens(output);
  const ref = tokens(expected);
  if (cand.length === 0 && ref.length === 0)
    return { score: 1, detail: '1 (actual_output and expected_output both have no words)' };
  if (cand.length === 0) return { score: 0, detail: '0 (actual_output has no words)' };
  if (ref.length === 0) return { score: 0, detail: '0 (expected_output has no words)' };
  const l = lcs(cand, ref);
  if (l === 0)
    return {
      score: 0,
      detail: `0 (no word in common: ${cand.length} words against ${ref.length} in expected_output)${missingWords(cand, ref)}`,
    };
  const p = l / cand.length;
  const r = l / ref.length;
  const score = (2 * p * r) / (p + r);
  return {
    score,
    detail: `${num(score)} (longest common word subsequence ${l}; precision ${l}/${cand.length}, recall ${l}/${ref.length})${missingWords(cand, ref)}`,
  };
}

/** ROUGE-L F1 on words (Lin, 2004): P = LCS/|candidate|, R = LCS/|reference|, F = 2PR/(P+R). */
export function rougeL(output: string, expected: string): number {
  return rougeFinding(output, expected).score;
}

/** Whether a text parses as JSON, and what it is; `what` names the text (a check may read another parameter). */
export function isJsonFinding(output: string, what = 'actual_output'): Finding {
  if (output.trim() === '')
    return { score: 0, detail: `${what} is not JSON: it is ${output === '' ? 'empty' : 'only whitespace'}` };
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return { score: 0, detail: `${what} is not JSON: ${notJsonBecause(output)}` };
  }
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? `an array of ${value.length} item${value.length === 1 ? '' : 's'}`
        : typeof value === 'object'
          ? `an object with ${Object.keys(value).length} key${Object.keys(value).length === 1 ? '' : 's'}`
          : typeName(value);
  return { score: 1, detail: `${what} is JSON (${kind})` };
}

export function isJson(output: string): number {
  return isJsonFinding(output).score;
}

function nonEmptyFinding(output: string): Finding {
  if (output === '') return { score: 0, detail: 'actual_output is empty' };
  const n = charCount(output);
  if (output.trim() === '')
    return { score: 0, detail: `actual_output is only whitespace (${n} character${n === 1 ? '' : 's'})` };
  return { score: 1, detail: `actual_output has ${n} character${n === 1 ? '' : 's'}` };
}

export function nonEmptyOutput(output: string): number {
  return nonEmptyFinding(output).score;
}

export function hasCardNumber(text: string): boolean {
  return findPii(text).some((m) => m.kind === 'card number');
}

function noPiiFinding(output: string): Finding {
  const found = findPii(output);
  if (found.length === 0)
    return { score: 1, detail: 'no e-mail address, phone number or card number in actual_output' };
  const one = (m: (typeof found)[number], inWhat: string) =>
    `${m.kind === 'e-mail address' ? 'an' : 'a'} ${m.kind}${inWhat} at character ${charNumberAt(output, m.start)} (${JSON.stringify(maskValue(output.slice(m.start, m.end)))})`;
  if (found.length === 1) return { score: 0, detail: `found ${one(found[0]!, ' in actual_output')}` };
  return {
    score: 0,
    detail: `found ${found.length} pieces of personal data in actual_output: ${listOf(
      found.map((m) => one(m, '')),
      3,
    )}`,
  };
}

/** 1 when the output holds no e-mail address, phone number or Luhn-valid card number. */
export function noPii(output: string): number {
  return noPiiFinding(output).score;
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

type Params = Record<string, unknown>;
const output = (p: Params) => asText(p.actual_output, 'actual_output');
const expectedOutput = (p: Params) => asText(p.expected_output, 'expected_output');

const FINDERS: Record<string, (p: Params) => Finding> = {
  text_similarity: (p) => textSimilarityFinding(output(p), expectedOutput(p)),
  text_match: (p) => textMatchFinding(output(p), expectedOutput(p)),
  json_field_match: (p) => jsonFieldFinding(output(p), expectedOutput(p), false),
  json_field_match_normalized: (p) => jsonFieldFinding(output(p), expectedOutput(p), true),
  iou: (p) => iouFinding(output(p), expectedOutput(p)),
  spatial_match: (p) => spatialMatchFinding(output(p), expectedOutput(p)),
  tool_correctness: (p) =>
    toolFinding(asList(p.tools_used ?? [], 'tools_used'), asList(p.expected_tools, 'expected_tools')),
  bleu: (p) => bleuFinding(output(p), expectedOutput(p)),
  rouge: (p) => rougeFinding(output(p), expectedOutput(p)),
  is_json: (p) => isJsonFinding(output(p)),
  non_empty_output: (p) => nonEmptyFinding(asText(p.actual_output ?? '', 'actual_output')),
  no_pii: (p) => noPiiFinding(asText(p.actual_output ?? '', 'actual_output')),
};

/** Each deterministic predefined metric, by name: the score and a reason starting with the name. */
export const DETERMINISTIC_METRICS: Record<string, (p: Params) => MetricResult> = Object.fromEntries(
  Object.entries(FINDERS).map(([name, find]) => [
    name,
    (p: Params) => {
      const f = find(p);
      return { score: f.score, reason: capReason(`${name}: ${f.detail}`) };
    },
  ]),
);
