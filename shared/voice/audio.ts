import { WaveFile } from './wavefile.js';
import { DEFAULT_SILENCE_THRESHOLD, FRAME_SAMPLES, MULAW_SILENCE, SAMPLE_RATE } from './line.js';

/**
 * The audio of voice runs, converted with wavefile (WAV read and write, resampling, μ-law): the
 * telephone format is 8 kHz, 16-bit, mono PCM in WAV files, and 20 ms frames of μ-law on a Media
 * Streams line. Levels are on Chime's `SilenceThreshold` scale, 0 to 1000, here logarithmic: 0 is
 * -60 dBFS (line noise) or quieter, 1000 is full scale, so the default threshold of 200 is -48 dBFS.
 */
export { DEFAULT_SILENCE_THRESHOLD, FRAME_MS, FRAME_SAMPLES, MULAW_SILENCE, SAMPLE_RATE } from './line.js';

/** Any PCM or μ-law WAV (any rate, depth or channel count; channels are mixed down) as 8 kHz 16-bit mono samples. */
export function decodeWav(bytes: Uint8Array): Int16Array {
  const wav = new WaveFile(bytes);
  const fmt = wav.fmt as { numChannels: number; sampleRate: number; audioFormat: number };
  if (fmt.audioFormat === 7) wav.fromMuLaw('16');
  else if (fmt.audioFormat === 6) wav.fromALaw('16');
  if (fmt.numChannels > 1) {
    const channels = wav.getSamples(false, Float64Array) as unknown as Float64Array[];
    const mixed = new Float64Array(channels[0]!.length);
    for (const channel of channels) for (let i = 0; i < mixed.length; i++) mixed[i]! += channel[i]! / channels.length;
    const depth = wav.bitDepth;
    const mono = new WaveFile();
    mono.fromScratch(1, fmt.sampleRate, depth, mixed);
    return decodeWav(mono.toBuffer());
  }
  if (fmt.sampleRate !== SAMPLE_RATE) wav.toSampleRate(SAMPLE_RATE, { method: 'sinc' });
  if (wav.bitDepth !== '16') wav.toBitDepth('16');
  return Int16Array.from(wav.getSamples(false, Int16Array) as unknown as Int16Array);
}

/**
 * A stereo WAV (16-bit PCM, another depth, μ-law or A-law) as its two channels of 16-bit samples at
 * its own rate: a call recording, the agent left and our caller right. Throws when it is not stereo.
 */
export function decodeStereoWav(bytes: Uint8Array): { sampleRate: number; left: Int16Array; right: Int16Array } {
  const wav = new WaveFile(bytes);
  const fmt = wav.fmt as { numChannels: number; sampleRate: number; audioFormat: number };
  if (fmt.numChannels !== 2) throw new Error(`the recording has ${fmt.numChannels} channels, not 2`);
  if (fmt.audioFormat === 7) wav.fromMuLaw('16');
  else if (fmt.audioFormat === 6) wav.fromALaw('16');
  if (wav.bitDepth !== '16') wav.toBitDepth('16');
  const [left, right] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
  return { sampleRate: fmt.sampleRate, left, right };
}

/** 8 kHz 16-bit mono samples as a WAV file. */
export function encodeWav(samples: Int16Array): Uint8Array {
  const wav = new WaveFile();
  wav.fromScratch(1, SAMPLE_RATE, '16', samples);
  return wav.toBuffer();
}

/** Two 8 kHz tracks as one stereo WAV (left, right); the shorter is padded with silence. */
export function encodeStereoWav(left: Int16Array, right: Int16Array): Uint8Array {
  const length = Math.max(left.length, right.length);
  const pad = (t: Int16Array) => (t.length === length ? t : Int16Array.from({ length }, (_, i) => t[i] ?? 0));
  const wav = new WaveFile();
  wav.fromScratch(2, SAMPLE_RATE, '16', [pad(left), pad(right)]);
  return wav.toBuffer();
}

/** 16-bit samples as μ-law bytes (one per sample). */
export function toMuLaw(samples: Int16Array): Uint8Array {
  const wav = new WaveFile();
  wav.fromScratch(1, SAMPLE_RATE, '16', samples);
  wav.toMuLaw();
  return Uint8Array.from((wav.data as { samples: Uint8Array }).samples);
}

/** μ-law bytes as 16-bit samples. */
export function fromMuLaw(bytes: Uint8Array): Int16Array {
  const wav = new WaveFile();
  wav.fromScratch(1, SAMPLE_RATE, '8m', bytes);
  wav.fromMuLaw('16');
  return Int16Array.from(wav.getSamples(false, Int16Array) as unknown as Int16Array);
}

/** Samples as 20 ms μ-law frames, the last padded with silence. */
export function muLawFrames(samples: Int16Array): Uint8Array[] {
  const bytes = toMuLaw(samples);
  const frames: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += FRAME_SAMPLES) {
    const frame = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);
    frame.set(bytes.subarray(i, i + FRAME_SAMPLES));
    frames.push(frame);
  }
  return frames;
}

/** Stretches of samples one after another. */
export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of parts) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

/** A stretch of samples' level, 0 (-60 dBFS or quieter) to 1000 (full scale), from its RMS. */
export function levelOf(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  const rms = Math.sqrt(sum / samples.length) / 32768;
  if (rms <= 0) return 0;
  const db = 20 * Math.log10(rms);
  return Math.max(0, Math.min(1000, Math.round(((db + 60) / 60) * 1000)));
}

/**
 * How long the audio is silent before its first 20 ms frame louder than `threshold`, in ms; null
 * when no frame is (no speech at all). A turn's response latency: its recording starts when the
 * utterance it answers ends.
 */
export function leadingSilenceMs(samples: Int16Array, threshold = DEFAULT_SILENCE_THRESHOLD): number | null {
  for (let i = 0; i < samples.length; i += FRAME_SAMPLES)
    if (levelOf(samples.subarray(i, i + FRAME_SAMPLES)) > threshold) return (i / SAMPLE_RATE) * 1000;
  return null;
}

/** The duration of samples at 8 kHz, in ms. */
export function durationMs(samples: Int16Array): number {
  return (samples.length / SAMPLE_RATE) * 1000;
}
