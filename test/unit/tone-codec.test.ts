import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeWav,
  encodeStereoWav,
  encodeWav,
  FRAME_SAMPLES,
  fromMuLaw,
  leadingSilenceMs,
  muLawFrames,
  MULAW_SILENCE,
  SAMPLE_RATE,
} from '../../shared/voice/audio.js';
import {
  DEFAULT_SAMPLE_RATE,
  decodeAudio,
  encodeText,
  GAP_MS,
  SYMBOL_MS,
  textToWav,
  wavToText,
} from '../../examples/voice/tone-codec.mjs';

const TEXTS = [
  'Hello, how can I help you today?',
  'Order #1042 shipped; refund: $12.50 (5–8 days) "ok" / \'yes\' ~ [a] {b} <c> @ % ^ & * = + | \\ ?!',
  'Olá! Quero o reembolso do pedido nº 42, já.',
  '¿Dónde está mi paquete? Größe, naïve, façade',
  '日本語のテスト 🎉 and ∑ ≠ ∞',
  'a',
  '',
];

/** The telephone path of the service: any WAV to 8 kHz, μ-law frames of 20 ms, back to 16-bit, a WAV again. */
function telephone(wav: Uint8Array, options: { leadingSilence?: number; trailingSilence?: number } = {}): Uint8Array {
  const speech = decodeWav(wav);
  const lead = options.leadingSilence ?? 0;
  const line = new Int16Array(lead + speech.length + (options.trailingSilence ?? 0));
  line.set(speech, lead);
  const frames = muLawFrames(line);
  const received = new Int16Array(frames.length * FRAME_SAMPLES);
  for (const [i, frame] of frames.entries()) received.set(fromMuLaw(frame), i * FRAME_SAMPLES);
  return encodeWav(received);
}

// Resampling with a sinc filter and reading every symbol is CPU work: seconds per test on a loaded
// machine, so past vitest's 5 s default when other files run beside this one.
describe('the tone codec', { timeout: 30_000 }, () => {
  it('reads back what it wrote, at its own rate and without a trip through the line', () => {
    for (const text of TEXTS) expect(decodeAudio(encodeText(text), DEFAULT_SAMPLE_RATE)).toBe(text);
  });

  it('lasts one symbol and gap per UTF-8 byte plus two markers', () => {
    const text = 'ação'; // 6 bytes
    const symbols = 6 + 2;
    expect(encodeText(text, { sampleRate: 8000 }).length).toBe(
      (symbols * SYMBOL_MS * 8000) / 1000 + ((symbols - 1) * GAP_MS * 8000) / 1000,
    );
  });

  it('survives the service path: a 24 kHz WAV resampled to 8 kHz, μ-law in 20 ms frames, a WAV again', () => {
    for (const text of TEXTS) {
      const wav = textToWav(text);
      expect(wavToText(telephone(wav))).toBe(text);
      // 24 kHz in the file, 8 kHz after the service.
      expect(new DataView(wav.buffer, wav.byteOffset).getUint32(24, true)).toBe(24_000);
    }
  });

  it('ignores leading and trailing silence, and the silence the service measures starts where it was put', () => {
    const text = 'Yes, I can help with that.';
    const wav = telephone(textToWav(text), { leadingSilence: 6_123, trailingSilence: 9_001 });
    expect(wavToText(wav)).toBe(text);
    // 6,123 samples of silence at 8 kHz: the first loud frame is the one holding sample 6,123.
    expect(leadingSilenceMs(decodeWav(wav))).toBe(Math.floor(6_123 / FRAME_SAMPLES) * 20);
  });

  it('reads speech cut into 20 ms frames at any offset, with frames of padding after it', () => {
    const spoken = new Map(TEXTS.map((text) => [text, decodeWav(textToWav(text))]));
    fc.assert(
      fc.property(
        fc.constantFrom(...TEXTS),
        fc.integer({ min: 0, max: 4 * FRAME_SAMPLES }),
        fc.integer({ min: 0, max: 10 }),
        (text, offset, paddingFrames) => {
          const speech = spoken.get(text)!;
          const line = new Int16Array(offset + speech.length);
          line.set(speech, offset);
          const frames = [
            ...muLawFrames(line),
            ...Array.from({ length: paddingFrames }, () => new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE)),
          ];
          const received = Int16Array.from(frames.flatMap((frame) => [...fromMuLaw(frame)]));
          expect(decodeAudio(received, SAMPLE_RATE)).toBe(text);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('reads any string, including control characters and lone surrogates (as U+FFFD)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 8 }), (text) => {
        const expected = new TextDecoder().decode(new TextEncoder().encode(text));
        expect(wavToText(telephone(textToWav(text, { sampleRate: 16_000 })))).toBe(expected);
      }),
      { numRuns: 15 },
    );
  });

  it('reads through line noise well under the tones', () => {
    const text = 'Your refund is on its way.';
    const speech = decodeWav(textToWav(text));
    let seed = 7;
    const noise = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31 - 0.5) * 2 * 1_000; // about -33 dBFS
    const noisy = Int16Array.from({ length: speech.length + 8_000 }, (_, i) => (speech[i - 4_000] ?? 0) + noise());
    expect(wavToText(telephone(encodeWav(noisy)))).toBe(text);
  });

  it('reads one channel of a stereo file', () => {
    const left = decodeWav(textToWav('left side'));
    const right = decodeWav(textToWav('right side'));
    const stereo = encodeStereoWav(left, right);
    expect(wavToText(stereo)).toBe('left side');
    expect(wavToText(stereo, { channel: 1 })).toBe('right side');
  });

  it('reads silence, noise or a cut before the start marker as nothing, and a message cut short as its beginning', () => {
    expect(decodeAudio(new Int16Array(8_000), SAMPLE_RATE)).toBe('');
    const speech = decodeWav(textToWav('hello there'));
    // Without the start marker (the first symbol and its gap).
    const symbol = ((SYMBOL_MS + GAP_MS) * SAMPLE_RATE) / 1000;
    expect(decodeAudio(speech.subarray(symbol), SAMPLE_RATE)).toBe('');
    // Cut after the start marker and five bytes: no end marker, the bytes read so far.
    expect(decodeAudio(speech.subarray(0, 6 * symbol), SAMPLE_RATE)).toBe('hello');
  });
});
