/**
 * Whether a pattern a user writes can backtrack catastrophically (DESIGN.md §15), decided once,
 * when the check is written, with redos-detector. Evaluations are bounded separately by a time
 * budget (checks.ts): this refusal keeps patterns that can never finish out of the table.
 */
import { isSafePattern } from 'redos-detector';

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
 * Why `pattern` (already known to compile with the `u` flag) can backtrack catastrophically, or
 * undefined when it cannot. The pattern is analysed anchored at one start position (`^(?:…)`):
 * trying each start position costs the engine a factor of the input length, which the time
 * budget bounds; what the analysis refuses is a pattern that can match the same text in more
 * ways than `maxScore` (200) from one position: nested or overlapping repetitions such as
 * `(a+)+$`, `(a|a)*b` or `(.*a){20}`. A case-insensitive pattern is also analysed the way the
 * detector can read case-insensitivity (without the `u` flag), when it compiles that way.
 */
export function catastrophicBacktracking(pattern: string, caseSensitive: boolean): string | undefined {
  const anchored = `^(?:${withoutGroupNames(pattern)})`;
  const runs: { unicode: boolean; caseInsensitive: boolean }[] = [{ unicode: true, caseInsensitive: false }];
  if (!caseSensitive && compiles(pattern, 'i')) runs.push({ unicode: false, caseInsensitive: true });
  for (const run of runs) {
    let result: ReturnType<typeof isSafePattern>;
    try {
      result = isSafePattern(anchored, { ...ANALYSIS, ...run });
    } catch (error) {
      // The case-insensitive reading is a second opinion: only the pattern as it runs (u flag) must be readable.
      if (!run.unicode) continue;
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
