/**
 * Whether a pattern a user writes can backtrack catastrophically, decided once,
 * when the check is written, with redos-detector. Evaluations are bounded separately by a time
 * budget (checks.ts): this refusal keeps patterns that can never finish out of the table.
 */
import { isSafePattern } from 'redos-detector';
import regjsparser, { type AstNode } from 'regjsparser';

/** Unbounded quantifiers (`*`, `+`, `{n,}`) a flat pattern may hold and still be accepted without the analysis. */
export const FLAT_UNBOUNDED_MAX = 3;

/**
 * Whether a pattern is flat: no repeated part (a quantifier with a maximum above 1) holds another
 * repetition, an alternation or a backreference; only single characters, classes and escapes
 * repeat. Such a pattern cannot backtrack exponentially: its ways to match one text grow at most
 * as the input length to the power of its quantifiers, a polynomial the evaluation's time budget
 * bounds. Undefined when it does not parse (the analysis decides).
 */
export function flatness(pattern: string, unicode = true): { flat: boolean; unbounded: number } | undefined {
  let root: AstNode<{ lookbehind: true; namedGroups: true; unicodePropertyEscape: true }>;
  try {
    root = regjsparser.parse(pattern, unicode ? 'u' : '', {
      lookbehind: true,
      namedGroups: true,
      unicodePropertyEscape: true,
    });
  } catch {
    return undefined;
  }
  let flat = true;
  let unbounded = 0;
  const visit = (
    node: AstNode<{ lookbehind: true; namedGroups: true; unicodePropertyEscape: true }>,
    repeated: boolean,
  ): void => {
    switch (node.type) {
      case 'quantifier': {
        const repeats = node.max === undefined || node.max > 1;
        if (repeats && repeated) flat = false;
        if (node.max === undefined) unbounded++;
        visit(node.body[0], repeated || repeats);
        return;
      }
      case 'disjunction':
        if (repeated) flat = false;
        for (const b of node.body) visit(b, repeated);
        return;
      case 'reference':
        if (repeated) flat = false;
        return;
      case 'alternative':
      case 'group':
        for (const b of node.body) visit(b as typeof node, repeated);
        return;
      default:
        return; // characters, classes, escapes, anchors, dot
    }
  };
  visit(root, false);
  return { flat, unbounded };
}

/** Steps and time the analysis may take; beyond either the pattern counts as unsafe (unproven). */
const ANALYSIS = { maxSteps: 5_000, timeout: 2_000 } as const;

/**
 * The pattern with named groups made plain, numbered as the engine numbers them (the detector
 * reads no `(?<name>…)` or `\k<name>`); matching is unchanged.
 */
export function withoutGroupNames(pattern: string): string {
  const numbers = new Map<string, number>();
  const scan = (rewrite: boolean): string => {
    let out = '';
    let groups = 0;
    let inClass = false;
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!;
      if (c === '\\') {
        const ref = inClass ? null : /^\\k<([^>]+)>/.exec(pattern.slice(i, i + 200));
        if (ref && rewrite && numbers.has(ref[1]!)) {
          out += `(?:\\${numbers.get(ref[1]!)})`;
          i += ref[0].length - 1;
          continue;
        }
        out += pattern.slice(i, i + 2);
        i++;
        continue;
      }
      if (inClass) {
        if (c === ']') inClass = false;
      } else if (c === '[') {
        inClass = true;
      } else if (c === '(') {
        const named = /^\(\?<(?![=!])([^>]+)>/.exec(pattern.slice(i, i + 200));
        if (named) {
          numbers.set(named[1]!, ++groups);
          out += '(';
          i += named[0].length - 1;
          continue;
        }
        if (pattern[i + 1] !== '?') groups++;
      }
      out += c;
    }
    return out;
  };
  scan(false);
  return scan(true);
}

function compiles(pattern: string, flags: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why `pattern` (already known to compile, with the `u` flag unless `unicode` is false) can backtrack catastrophically, or
 * undefined when it cannot. The pattern is analysed anchored at one start position (`^(?:…)`):
 * trying each start position costs the engine a factor of the input length, which the time
 * budget bounds; what the analysis refuses is a pattern that can match the same text in more
 * ways than `maxScore` (200) from one position: nested or overlapping repetitions such as
 * `(a+)+$`, `(a|a)*b` or `(.*a){20}`. A case-insensitive pattern is also analysed the way the
 * detector can read case-insensitivity (without the `u` flag), when it compiles that way.
 */
export function catastrophicBacktracking(pattern: string, caseSensitive: boolean, unicode = true): string | undefined {
  // A flat pattern with few unbounded repetitions (`^.*refund.*$`, `^[^@\s]+@[^@\s]+\.[^@\s]+$`)
  // is polynomial at worst: the detector counts any overlap as unsafe, so it would refuse these.
  const shape = flatness(pattern, unicode);
  if (shape?.flat && shape.unbounded <= FLAT_UNBOUNDED_MAX) return undefined;
  const anchored = `^(?:${withoutGroupNames(pattern)})`;
  // A pattern that compiles only without `u` (Annex B) is analysed as it runs, without it.
  const runs: { unicode: boolean; caseInsensitive: boolean }[] = [{ unicode, caseInsensitive: false }];
  if (!caseSensitive && compiles(pattern, 'i')) runs.push({ unicode: false, caseInsensitive: true });
  for (const run of runs) {
    let result: ReturnType<typeof isSafePattern>;
    try {
      result = isSafePattern(anchored, { ...ANALYSIS, ...run });
    } catch (error) {
      // The case-insensitive reading is a second opinion: only the pattern as it runs must be readable.
      if (run.caseInsensitive) continue;
      return `uses syntax the backtracking analysis cannot read (${(error as Error).message.split('\n')[0]!.slice(0, 120)})`;
    }
    if (result.safe) continue;
    if (result.error === 'hitMaxScore') {
      const at = result.trails[0]?.trail[0]?.a.node.source;
      return `can backtrack catastrophically: the same text can be matched in more than one way${at ? ` through ${JSON.stringify(at.slice(0, 60))}` : ''} (nested or overlapping repetitions); rewrite it so each part of the input can be matched only one way`;
    }
    return 'can backtrack catastrophically: it has too many ways to match the same text to prove otherwise (nested or overlapping repetitions); simplify it';
  }
  return undefined;
}
