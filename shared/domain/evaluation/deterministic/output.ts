/** Checks of the output alone: not empty, no personal data. */
import { charCount, charNumberAt, findPii, listOf, maskValue } from '../reason-text.js';
import type { Finding } from './result.js';

export function nonEmptyFinding(output: string): Finding {
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

export function noPiiFinding(output: string): Finding {
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
