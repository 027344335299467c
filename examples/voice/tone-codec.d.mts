// Types of tone-codec.mjs for the TypeScript tests (the project's tsconfig does not check JavaScript).

/** The rate `encodeText` and `textToWav` write by default. */
export const DEFAULT_SAMPLE_RATE: number;
/** How long one symbol sounds, in ms. */
export const SYMBOL_MS: number;
/** The silence after each symbol but the last, in ms. */
export const GAP_MS: number;
/** The low frequencies (high nibble; the 17th marks), in Hz. */
export const LOW_HZ: number[];
/** The high frequencies (low nibble; the 17th marks), in Hz. */
export const HIGH_HZ: number[];

/** Text as tone symbols: 16-bit mono samples at `sampleRate` (default 24 kHz). */
export function encodeText(text: string, options?: { sampleRate?: number }): Int16Array;
/** The text tone symbols carry; '' without a start marker. An Int16Array is full scale 32768, other arrays 1. */
export function decodeAudio(samples: ArrayLike<number>, sampleRate: number): string;
/** Text as a 16-bit mono PCM WAV file (default 24 kHz). */
export function textToWav(text: string, options?: { sampleRate?: number }): Uint8Array;
/** The text a WAV file of tone symbols carries (of a file with several channels, `channel`, default 0). */
export function wavToText(bytes: Uint8Array, options?: { channel?: number }): string;
