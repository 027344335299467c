// A speech codec for tests and the local demo: text is "spoken" as tones a machine can read back, so
// every word of a voice run goes through the real audio path (WAV at any rate → 8 kHz, μ-law, 20 ms
// frames) without a speech model. Each UTF-8 byte is one symbol: two simultaneous tones, one of 16
// low frequencies (the high nibble) and one of 16 high ones (the low nibble), like DTMF with a
// larger grid, all inside the telephone band (300–3400 Hz). A start marker opens the message and an
// end marker closes it, each a pair of frequencies no byte uses. Symbols last 70 ms and are
// separated by 30 ms of silence (10 bytes a second), so the decoder finds them by their energy and
// reads each one's frequencies with Goertzel filters over its middle, where neither a resampling
// filter's ringing nor a frame boundary reaches.
import wavefile from 'wavefile';

const { WaveFile } = wavefile;

/** The rate `encodeText` and `textToWav` write by default: not 8 kHz, so a consumer's resampling is exercised. */
export const DEFAULT_SAMPLE_RATE = 24_000;
/** How long one symbol sounds, in ms. */
export const SYMBOL_MS = 70;
/** The silence after each symbol but the last, in ms. */
export const GAP_MS = 30;
/** Fade in and out of a symbol, in ms: a hard edge would splatter energy into the neighbouring frequencies. */
const RAMP_MS = 5;
/** Peak amplitude of each of the two tones (full scale 1): their sum stays clear of clipping after resampling. */
const AMPLITUDE = 0.3;

/** 16 low frequencies for the high nibble and a 17th for the markers, 60 Hz apart (Hz). */
export const LOW_HZ = Array.from({ length: 17 }, (_, i) => 460 + 60 * i);
/** 16 high frequencies for the low nibble and a 17th for the markers, 90 Hz apart (Hz). */
export const HIGH_HZ = Array.from({ length: 17 }, (_, i) => 1700 + 90 * i);
const MARKER = 16;
/** The symbol before the first byte (low, high frequency index). */
const START = [MARKER, MARKER];
/** The symbol after the last byte. */
const END = [MARKER, 0];

/** Window of the energy envelope the decoder segments by, in ms. */
const ENVELOPE_MS = 5;
/** Trimmed off each end of a symbol before its frequencies are read, in ms. */
const EDGE_MS = 12;
/** Quieter than this (RMS, full scale 1: about -50 dBFS) is silence whatever the loudest symbol. */
const SILENCE_RMS = 0.003;

/**
 * Text as tone symbols: 16-bit mono samples at `sampleRate`, the start marker, each UTF-8 byte of
 * the text, the end marker.
 * @param {string} text
 * @param {{ sampleRate?: number }} [options]
 * @returns {Int16Array}
 */
export function encodeText(text, { sampleRate = DEFAULT_SAMPLE_RATE } = {}) {
  const symbols = [START, ...[...new TextEncoder().encode(text)].map((byte) => [byte >> 4, byte & 0x0f]), END];
  const tone = Math.round((SYMBOL_MS / 1000) * sampleRate);
  const gap = Math.round((GAP_MS / 1000) * sampleRate);
  const ramp = Math.round((RAMP_MS / 1000) * sampleRate);
  const out = new Int16Array(symbols.length * tone + (symbols.length - 1) * gap);
  symbols.forEach(([low, high], n) => {
    const start = n * (tone + gap);
    const f1 = LOW_HZ[/** @type {number} */ (low)] ?? 0;
    const f2 = HIGH_HZ[/** @type {number} */ (high)] ?? 0;
    for (let i = 0; i < tone; i++) {
      const t = i / sampleRate;
      const edge = Math.min(i, tone - 1 - i);
      const fade = edge >= ramp ? 1 : 0.5 - 0.5 * Math.cos((Math.PI * edge) / ramp);
      const value = AMPLITUDE * fade * (Math.sin(2 * Math.PI * f1 * t) + Math.sin(2 * Math.PI * f2 * t));
      out[start + i] = Math.round(value * 32767);
    }
  });
  return out;
}

/**
 * The text tone symbols carry: what lies between the first start marker and the next end marker (or
 * the end of the audio). Silence, or noise well under the symbols, before, between and after them is
 * ignored; no start marker reads as ''. Bytes that are not valid UTF-8 read as U+FFFD.
 * @param {ArrayLike<number>} samples an Int16Array (full scale 32768), or floats (full scale 1)
 * @param {number} sampleRate
 * @returns {string}
 */
export function decodeAudio(samples, sampleRate) {
  const scale = samples instanceof Int16Array ? 1 / 32768 : 1;
  const x = Float64Array.from(samples, (s) => s * scale);
  /** @type {number[]} */
  const bytes = [];
  let started = false;
  for (const [from, to] of symbolSpans(x, sampleRate)) {
    const [low, high] = readSymbol(x.subarray(from, to), sampleRate);
    if (low === MARKER) {
      if (high === START[1]) {
        started = true;
        bytes.length = 0; // a second start marker opens the message again
      } else if (high === END[1] && started) break;
      continue;
    }
    if (started) bytes.push(low * 16 + high);
  }
  return started ? new TextDecoder().decode(Uint8Array.from(bytes)) : '';
}

/**
 * Where the symbols are, as [from, to) sample ranges of their middles: runs of envelope windows above
 * a threshold (a fifth of the loudest window, and at least SILENCE_RMS), dips of one window bridged,
 * blips shorter than half a symbol dropped, and a run as long as several symbols (gaps lost in noise)
 * cut into that many.
 * @param {Float64Array} x
 * @param {number} sampleRate
 * @returns {[number, number][]}
 */
function symbolSpans(x, sampleRate) {
  const window = Math.max(1, Math.round((ENVELOPE_MS / 1000) * sampleRate));
  const envelope = [];
  for (let i = 0; i < x.length; i += window) {
    let sum = 0;
    const end = Math.min(x.length, i + window);
    for (let j = i; j < end; j++) sum += /** @type {number} */ (x[j]) ** 2;
    envelope.push(Math.sqrt(sum / (end - i)));
  }
  const loudest = envelope.reduce((max, e) => Math.max(max, e), 0);
  const threshold = Math.max(SILENCE_RMS, 0.2 * loudest);
  const loud = envelope.map((e) => e > threshold);
  for (let w = 1; w < loud.length - 1; w++) if (!loud[w] && loud[w - 1] && loud[w + 1]) loud[w] = true;
  /** @type {[number, number][]} */
  const runs = [];
  for (let w = 0; w < loud.length; w++) {
    if (!loud[w]) continue;
    const first = w;
    while (w < loud.length && loud[w]) w++;
    runs.push([first * window, Math.min(x.length, w * window)]);
  }
  const tone = (SYMBOL_MS / 1000) * sampleRate;
  const period = ((SYMBOL_MS + GAP_MS) / 1000) * sampleRate;
  const edge = Math.round((EDGE_MS / 1000) * sampleRate);
  /** @type {[number, number][]} */
  const spans = [];
  for (const [from, to] of runs) {
    if (to - from < tone / 2) continue;
    const count = Math.max(1, Math.round((to - from + (period - tone)) / period));
    const each = (to - from) / count;
    for (let k = 0; k < count; k++) {
      const a = Math.round(from + k * each);
      const b = Math.round(from + (k + 1) * each);
      const trim = Math.min(edge, Math.floor((b - a) / 4));
      spans.push([a + trim, b - trim]);
    }
  }
  return spans;
}

/**
 * The strongest low and high frequency of a stretch of samples (Hann window, then one Goertzel
 * filter per frequency), as indexes into LOW_HZ and HIGH_HZ.
 * @param {Float64Array} x
 * @param {number} sampleRate
 * @returns {[number, number]}
 */
function readSymbol(x, sampleRate) {
  const n = x.length;
  const windowed = x.map((v, i) => v * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / Math.max(1, n - 1))));
  /** @param {number[]} group */
  const strongest = (group) => {
    let best = 0;
    let bestPower = -1;
    group.forEach((hz, index) => {
      const power = goertzel(windowed, hz, sampleRate);
      if (power > bestPower) {
        bestPower = power;
        best = index;
      }
    });
    return best;
  };
  return [strongest(LOW_HZ), strongest(HIGH_HZ)];
}

/**
 * The power of one frequency in the samples (the Goertzel algorithm, for any frequency, not only a
 * DFT bin's).
 * @param {Float64Array} x
 * @param {number} hz
 * @param {number} sampleRate
 */
function goertzel(x, hz, sampleRate) {
  const w = (2 * Math.PI * hz) / sampleRate;
  const coefficient = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (const v of x) {
    const s0 = v + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

/**
 * Text as a 16-bit mono PCM WAV file, at 24 kHz unless told otherwise.
 * @param {string} text
 * @param {{ sampleRate?: number }} [options]
 * @returns {Uint8Array}
 */
export function textToWav(text, { sampleRate = DEFAULT_SAMPLE_RATE } = {}) {
  const wav = new WaveFile();
  wav.fromScratch(1, sampleRate, '16', encodeText(text, { sampleRate }));
  return wav.toBuffer();
}

/**
 * The text a WAV file of tone symbols carries: PCM of any depth and rate, or μ-law or A-law; of a
 * file with several channels, `channel` (default the first).
 * @param {Uint8Array} bytes
 * @param {{ channel?: number }} [options]
 * @returns {string}
 */
export function wavToText(bytes, { channel = 0 } = {}) {
  const wav = new WaveFile(bytes);
  const fmt = /** @type {{ audioFormat: number; numChannels: number; sampleRate: number }} */ (wav.fmt);
  if (fmt.audioFormat === 7) wav.fromMuLaw('16');
  else if (fmt.audioFormat === 6) wav.fromALaw('16');
  if (wav.bitDepth !== '16') wav.toBitDepth('16');
  const samples = /** @type {Float64Array | Float64Array[]} */ (/** @type {unknown} */ (wav.getSamples(false)));
  const track = fmt.numChannels > 1 ? /** @type {Float64Array[]} */ (samples)[channel] : samples;
  if (!track || Array.isArray(track)) throw new Error(`the WAV file has no channel ${channel}`);
  return decodeAudio(Int16Array.from(/** @type {Float64Array} */ (track)), fmt.sampleRate);
}
