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

/**
 * The longest answer a voice run records (RecordAudio's DurationInSeconds, `VOICE_ANSWER_SECONDS`):
 * a step waits for news of its call a bounded time after it speaks (CALL_NEWS_WINDOW_MS).
 */
export const MAX_ANSWER_SECONDS = 600;
/**
 * How long after its utterance has played a session's step waits for news of its call (an answer,
 * a hang-up, a failed action) before it fails the session: the ring of a first call (60 s), the
 * longest answer (10 minutes) and four minutes more. Fifteen minutes, the longest an SQS message
 * can be delayed.
 */
export const CALL_NEWS_WINDOW_MS = 900_000;
