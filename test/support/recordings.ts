import { WaveFile } from '../../shared/voice/wavefile.js';

/**
 * Stereo call recordings with known speech: each segment a 440 Hz tone of amplitude 3000 (RMS ≈
 * 2121, well above the speech threshold of 200), silence elsewhere, so the voice figures of a
 * recording are known to the millisecond (segments on 20 ms frames).
 */

/** A channel of `ms` at `rate` with a tone in each [fromMs, toMs) segment. */
export function toneChannel(
  rate: number,
  ms: number,
  segments: ReadonlyArray<readonly [number, number]>,
  amplitude = 3000,
): Int16Array {
  const out = new Int16Array((rate * ms) / 1000);
  for (const [from, to] of segments)
    for (let i = (rate * from) / 1000; i < (rate * to) / 1000; i++)
      out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / rate));
  return out;
}

/** A stereo WAV (agent left, user right): 16-bit PCM, or 8-bit μ-law with `depth` '8m'. */
export function stereoWav(rate: number, left: Int16Array, right: Int16Array, depth: '16' | '8m' = '16'): Uint8Array {
  const wav = new WaveFile();
  wav.fromScratch(2, rate, '16', [left, right]);
  if (depth === '8m') wav.toMuLaw();
  return wav.toBuffer();
}

/** A stereo recording of `ms` with these agent and user segments. */
export function callRecording(
  ms: number,
  agent: ReadonlyArray<readonly [number, number]>,
  user: ReadonlyArray<readonly [number, number]>,
  rate = 8000,
): Uint8Array {
  return stereoWav(rate, toneChannel(rate, ms, agent), toneChannel(rate, ms, user));
}

/** A mono WAV of `ms` of silence. */
export function monoWav(rate: number, ms: number): Uint8Array {
  const wav = new WaveFile();
  wav.fromScratch(1, rate, '16', new Int16Array((rate * ms) / 1000));
  return wav.toBuffer();
}

/** A stereo WAV whose header says it lasts `seconds` (the data chunk's size), holding one frame. */
export function headerSaying(seconds: number, rate = 8000): Uint8Array {
  const wav = stereoWav(rate, new Int16Array(8), new Int16Array(8));
  new DataView(wav.buffer, wav.byteOffset).setUint32(40, seconds * rate * 4, true);
  return wav;
}

const seg = (startMs: number, endMs: number) => ({ startMs, endMs });

/**
 * A call of 10 s whose every figure is known: the agent 0–1000, 2000–2600 (500 ms into the user's
 * 1200–2400: an interruption, 400 ms over it) and 4300–5000 (1900 ms after the user stopped); the
 * user again 9000–9500, after 4000 ms of silence (dead air).
 */
export function knownCall(rate = 8000): Uint8Array {
  return callRecording(
    10_000,
    [
      [0, 1000],
      [2000, 2600],
      [4300, 5000],
    ],
    [
      [1200, 2400],
      [9000, 9500],
    ],
    rate,
  );
}

/** `knownCall`'s voice figures, as the session stores them. */
export const KNOWN_CALL_VOICE = {
  agentSpeechMs: 2300,
  userSpeechMs: 1700,
  talkRatio: 2300 / 4000,
  overlapMs: 400,
  agentInterruptions: 1,
  deadAirMs: 4000,
  responseLatencyMs: [1900],
  segments: {
    agent: [seg(0, 1000), seg(2000, 2600), seg(4300, 5000)],
    user: [seg(1200, 2400), seg(9000, 9500)],
    truncated: false,
  },
};
