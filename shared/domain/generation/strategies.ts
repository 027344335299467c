/**
 * Red-team and scenario strategies. The deterministic ones are pure functions of
 * the attack text, implemented exactly as the design states; the others are written by the
 * generator model.
 */

/** Strategies computed in code from the `original` attack. */
export const DETERMINISTIC_STRATEGIES = [
  'original',
  'base64',
  'hex',
  'rot13',
  'leetspeak',
  'homoglyph',
  'morse',
  'zero_width',
] as const;
/** Strategies the generator writes (a rewrite of the attack). */
export const WRITTEN_STRATEGIES = [
  'role_play',
  'prefix',
  'creative_writing',
  'persuasive_content',
  'data_analysis',
  'bait_and_switch',
  'empathetic_framing',
  'biblical',
  'math_prompt',
  'emoji',
] as const;
export const RED_TEAMING_STRATEGIES: readonly string[] = [...DETERMINISTIC_STRATEGIES, ...WRITTEN_STRATEGIES];
/** The simulated user's style in SCENARIOS tests. */
export const SCENARIOS_STRATEGIES = ['written', 'spoken'] as const;

export type DeterministicStrategy = (typeof DETERMINISTIC_STRATEGIES)[number];

export function isDeterministic(strategy: string): strategy is DeterministicStrategy {
  return (DETERMINISTIC_STRATEGIES as readonly string[]).includes(strategy);
}

export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** UTF-8 bytes as lowercase hex, no separators. */
export function hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

/** ROT13 of the ASCII letters; everything else unchanged (its own inverse). */
export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

const LEET: Record<string, string> = { a: '4', e: '3', i: '1', o: '0', s: '5', t: '7' };

/** a→4 e→3 i→1 o→0 s→5 t→7 (either case); other characters unchanged. */
export function leetspeak(text: string): string {
  return text.replace(/[aeiostAEIOST]/g, (c) => LEET[c.toLowerCase()]!);
}

/** Latin letters and their Cyrillic look-alikes (letters without one stay Latin). */
export const HOMOGLYPHS: Readonly<Record<string, string>> = {
  a: '\u0430',
  c: '\u0441',
  e: '\u0435',
  h: '\u04bb',
  i: '\u0456',
  j: '\u0458',
  o: '\u043e',
  p: '\u0440',
  s: '\u0455',
  x: '\u0445',
  y: '\u0443',
  A: '\u0410',
  B: '\u0412',
  C: '\u0421',
  E: '\u0415',
  H: '\u041d',
  I: '\u0406',
  J: '\u0408',
  K: '\u041a',
  M: '\u041c',
  O: '\u041e',
  P: '\u0420',
  S: '\u0405',
  T: '\u0422',
  X: '\u0425',
  Y: '\u04ae',
};

export function homoglyph(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => HOMOGLYPHS[c] ?? c);
}

/** ITU-R M.1677-1 codes of the letters and digits. */
export const MORSE: Readonly<Record<string, string>> = {
  A: '.-',
  B: '-...',
  C: '-.-.',
  D: '-..',
  E: '.',
  F: '..-.',
  G: '--.',
  H: '....',
  I: '..',
  J: '.---',
  K: '-.-',
  L: '.-..',
  M: '--',
  N: '-.',
  O: '---',
  P: '.--.',
  Q: '--.-',
  R: '.-.',
  S: '...',
  T: '-',
  U: '..-',
  V: '...-',
  W: '.--',
  X: '-..-',
  Y: '-.--',
  Z: '--..',
  '0': '-----',
  '1': '.----',
  '2': '..---',
  '3': '...--',
  '4': '....-',
  '5': '.....',
  '6': '-....',
  '7': '--...',
  '8': '---..',
  '9': '----.',
};
const FROM_MORSE = Object.fromEntries(Object.entries(MORSE).map(([k, v]) => [v, k]));

/**
 * Morse code: letters (accents dropped, case folded) and digits, one space between the codes of a
 * word, ` / ` between words. Characters ITU gives no letter or digit code are left out.
 */
export function morse(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .split(/\s+/)
    .map((word) =>
      [...word]
        .map((c) => MORSE[c])
        .filter((code): code is string => code !== undefined)
        .join(' '),
    )
    .filter((word) => word !== '')
    .join(' / ');
}

/** The inverse of `morse` (upper-case letters, digits, one space between words). */
export function fromMorse(code: string): string {
  return code
    .split(' / ')
    .map((word) =>
      word
        .split(' ')
        .map((c) => FROM_MORSE[c] ?? '')
        .join(''),
    )
    .join(' ');
}

/** U+200B (zero width space) after every character of each word; whitespace is left as it is. */
export function zeroWidth(text: string): string {
  return [...text].map((c) => (/\s/.test(c) ? c : `${c}\u200b`)).join('');
}

export const TRANSFORMS: Readonly<Record<DeterministicStrategy, (text: string) => string>> = {
  original: (t) => t,
  base64,
  hex,
  rot13,
  leetspeak,
  homoglyph,
  morse,
  zero_width: zeroWidth,
};

/** A deterministic strategy applied to an attack. */
export function transform(strategy: DeterministicStrategy, text: string): string {
  return TRANSFORMS[strategy](text);
}
