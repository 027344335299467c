/**
 * The telephone line's numbers, apart from the audio code (./audio.ts, which converts with
 * wavefile): the call-control handler needs the silence threshold, not the WAV library.
 */

export const SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
/** Samples in one 20 ms frame at 8 kHz. */
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000;
/** μ-law's code for a zero sample. */
export const MULAW_SILENCE = 0xff;
/** The level under which a frame is silence unless the caller says otherwise (Chime's default for this service). */
export const DEFAULT_SILENCE_THRESHOLD = 200;
