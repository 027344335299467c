import { WaveFile } from './wavefile.js';

/**
 * A call's stereo recording read for its voice figures: the agent on the left channel, the other
 * party (our simulated caller, or the customer on a production call) on the right. Read with
 * wavefile; only the header is parsed before the limits are checked, so a file that breaks one
 * costs no decoding.
 */
/** The sample rates a recording may have: the telephone's 8 kHz and wideband 16 kHz. */
export const RECORDING_RATES = [8000, 16000] as const;
/** The longest recording read: two hours. */
export const MAX_RECORDING_SECONDS = 7200;

/** Why a recording cannot be read, in words a caller can act on. */
export class RecordingError extends Error {}

export interface StereoRecording {
  sampleRate: number;
  /** The agent's channel (left), 16-bit samples. */
  agent: Int16Array;
  /** The caller's channel (right), 16-bit samples. */
  user: Int16Array;
}

interface Header {
  fmt: { numChannels: number; sampleRate: number; audioFormat: number; bitsPerSample: number; blockAlign: number };
  data: { chunkSize: number };
}

/** The recording's header checked against the limits; throws a RecordingError naming the first it breaks. */
function checkedHeader(bytes: Uint8Array): Header {
  if (bytes.length === 0) throw new RecordingError('the recording is empty');
  const wav = new WaveFile();
  try {
    wav.fromBuffer(bytes, false);
  } catch {
    throw new RecordingError('the recording is not a WAV file');
  }
  const { fmt, data } = wav as unknown as Header;
  const pcm16 = fmt.audioFormat === 1 && fmt.bitsPerSample === 16;
  const companded = (fmt.audioFormat === 6 || fmt.audioFormat === 7) && fmt.bitsPerSample === 8;
  if (!pcm16 && !companded) throw new RecordingError('the recording must be 16-bit PCM, μ-law or A-law');
  if (fmt.numChannels !== 2)
    throw new RecordingError(
      `the recording must be stereo (the agent left, the caller right); it has ${fmt.numChannels} channel${fmt.numChannels === 1 ? '' : 's'}`,
    );
  if (!(RECORDING_RATES as readonly number[]).includes(fmt.sampleRate))
    throw new RecordingError(`the recording's sample rate must be 8000 or 16000 Hz; it is ${fmt.sampleRate} Hz`);
  const frames = Math.floor(data.chunkSize / fmt.blockAlign);
  if (frames === 0) throw new RecordingError('the recording holds no audio');
  if (frames / fmt.sampleRate > MAX_RECORDING_SECONDS) throw new RecordingError('the recording is longer than 2 hours');
  return { fmt, data };
}

/**
 * Checks a recording's header against the limits without decoding it: the file's first bytes are
 * enough (a request checks an upload from its start); throws the RecordingError `readStereoRecording`
 * would.
 */
export function checkRecordingHeader(bytes: Uint8Array): void {
  checkedHeader(bytes);
}

/** A stereo WAV (8 or 16 kHz; 16-bit PCM, μ-law or A-law; up to 2 hours) as its two channels. */
export function readStereoRecording(bytes: Uint8Array): StereoRecording {
  const { fmt } = checkedHeader(bytes);
  const wav = new WaveFile();
  try {
    wav.fromBuffer(bytes);
    if (fmt.audioFormat === 7) wav.fromMuLaw('16');
    else if (fmt.audioFormat === 6) wav.fromALaw('16');
  } catch {
    throw new RecordingError('the recording is not a WAV file');
  }
  const [agent, user] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
  return { sampleRate: fmt.sampleRate, agent, user };
}
