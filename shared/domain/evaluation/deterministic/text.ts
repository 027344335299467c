/** Text against text: edit-distance similarity and exact match. */
import { excerpt, num } from '../reason-text.js';
import type { Finding } from './result.js';

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

export function textSimilarityFinding(output: string, expected: string): Finding {
  const f = similarityFinding(output, expected);
  return { score: f.score, detail: `${num(f.score)} (${f.detail})${f.where}` };
}

export function textMatchFinding(output: string, expected: string): Finding {
  const f = similarityFinding(output, expected);
  const matched = f.score > 0.85;
  return {
    score: matched ? 1 : 0,
    detail: `similarity ${num(f.score)} ${matched ? '>' : '≤'} 0.85 (${f.detail})${f.where}`,
  };
}
