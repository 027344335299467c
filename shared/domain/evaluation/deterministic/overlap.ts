/** Word overlap with a reference text: BLEU and ROUGE-L. */
import { listOf, maskSensitive, maskValue, num } from '../reason-text.js';
import type { Finding } from './result.js';

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

export function bleuFinding(output: string, expected: string): Finding {
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

export function rougeFinding(output: string, expected: string): Finding {
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
