import { ENV, optionalEnv } from '../config/env.js';
import { logger } from '../observability/logger.js';
import { quote } from './answer.js';
import { chargedCall, deadlineOf, llmConfig, type Outcome, post } from './client.js';
import { DEFAULT_TRANSCRIPTION_MODEL, DEFAULT_TTS_MODEL, DEFAULT_TTS_VOICE, resolveModel } from './models.js';

/**
 * The speech of voice runs, from the same OpenAI-compatible endpoint as every LLM call and through
 * the same machinery (shared/llm/client.ts): the simulated user's turn is spoken by
 * `POST /audio/speech`, the agent's answer is transcribed by `POST /audio/transcriptions`. Each call
 * costs its model's credits like a Chat Completions call (an evaluator-model record of the model's
 * name gives the provider model id and the price; 1 credit without one), reserved before the request,
 * settled for a usable answer, released otherwise; 429, 5xx, timeouts and network errors are retried.
 */

export interface SpeechConfig {
  /** Model name of text to speech (an evaluator-model record name or the provider's id). */
  ttsModel: string;
  /** The voice it speaks with. */
  ttsVoice: string;
  /** Model name of speech to text. */
  transcriptionModel: string;
}

let config: SpeechConfig = {
  ttsModel: optionalEnv(ENV.ttsModel) ?? DEFAULT_TTS_MODEL,
  ttsVoice: optionalEnv(ENV.ttsVoice) ?? DEFAULT_TTS_VOICE,
  transcriptionModel: optionalEnv(ENV.transcriptionModel) ?? DEFAULT_TRANSCRIPTION_MODEL,
};

export function speechConfig(): SpeechConfig {
  return config;
}

/** For tests: other model names or voice (the endpoint and key are the LLM client's, `setLlmConfig`). */
export function setSpeechConfig(patch: Partial<SpeechConfig>): void {
  config = { ...config, ...patch };
}

/** The most characters one speech request takes (OpenAI's limit). */
export const MAX_SPEECH_CHARACTERS = 4096;

export interface SpeechInput {
  organizationId: string;
  text: string;
  /** Time left to the caller, in ms: no attempt or retry wait runs past it (as for `callLlm`). */
  remainingMs?: number;
}

export type SpeechResult =
  | {
      ok: true;
      /** 8 kHz 16-bit mono PCM. */
      wav: Uint8Array;
      /** How long it plays. */
      durationMs: number;
      creditsUsed: number;
    }
  | { ok: false; error: string; creditsUsed: 0 };

export interface TranscriptionInput {
  organizationId: string;
  /** A WAV file (any rate, depth or channel count the model reads; the service records 8 kHz mono). */
  wav: Uint8Array;
  /** The language spoken, as a BCP 47 tag (`pt-BR`) or ISO 639-1 code; the model is sent its primary subtag (`pt`). */
  language?: string;
  remainingMs?: number;
}

export type TranscriptionResult =
  | { ok: true; text: string; creditsUsed: number }
  | { ok: false; error: string; creditsUsed: 0 };

/**
 * `text` spoken, as a telephone-format WAV: whatever WAV the model answers (OpenAI's is 24 kHz, its
 * sizes left at 0xFFFFFFFF because it is streamed) is converted to 8 kHz 16-bit mono. Errors:
 * "no speech model is configured", "no credits available: …", "speech synthesis failed: …".
 */
export async function synthesizeSpeech(input: SpeechInput): Promise<SpeechResult> {
  const cfg = llmConfig();
  if (!cfg.baseUrl) return { ok: false, error: 'no speech model is configured', creditsUsed: 0 };
  const fail = (error: string) => ({
    ok: false as const,
    error: `speech synthesis failed: ${error}`,
    creditsUsed: 0 as const,
  });
  if (input.text.trim() === '') return fail('there is no text to say');
  if (input.text.length > MAX_SPEECH_CHARACTERS)
    return fail(`the text has ${input.text.length} characters, more than the ${MAX_SPEECH_CHARACTERS} a request takes`);
  const { model, creditsModelName } = await resolveModel(config.ttsModel);
  const body = JSON.stringify({ model, voice: config.ttsVoice, input: input.text, response_format: 'wav' });
  const result = await chargedCall(
    { organizationId: input.organizationId, creditsModelName },
    async (): Promise<Outcome<TelephoneAudio>> => {
      const request = { path: '/audio/speech', body, who: 'the speech model', log: { purpose: 'speech', model } };
      const sent = await post(request, cfg, deadlineOf(input.remainingMs));
      if (!sent.ok) return { ok: false, error: `speech synthesis failed: ${sent.error}` };
      const audio = await telephoneWav(sent.body);
      return audio.ok ? audio : { ok: false, error: `speech synthesis failed: ${audio.error}` };
    },
    (error) => logger.warn('llm call failed', { purpose: 'speech', model, error }),
  );
  return result.ok ? { ok: true, ...result.value, creditsUsed: result.creditsUsed } : result;
}

/**
 * What is said in a WAV file, as text ('' when nothing is). Errors: "no transcription model is
 * configured", "no credits available: …", "transcription failed: …".
 */
export async function transcribeSpeech(input: TranscriptionInput): Promise<TranscriptionResult> {
  const cfg = llmConfig();
  if (!cfg.baseUrl) return { ok: false, error: 'no transcription model is configured', creditsUsed: 0 };
  const { model, creditsModelName } = await resolveModel(config.transcriptionModel);
  const form = new FormData();
  form.append('file', new Blob([Uint8Array.from(input.wav)], { type: 'audio/wav' }), 'answer.wav');
  form.append('model', model);
  form.append('response_format', 'json');
  const language = input.language?.split(/[-_]/)[0]?.toLowerCase();
  if (language) form.append('language', language);
  const result = await chargedCall(
    { organizationId: input.organizationId, creditsModelName },
    async (): Promise<Outcome<string>> => {
      const request = {
        path: '/audio/transcriptions',
        body: form,
        who: 'the transcription model',
        log: { purpose: 'transcription', model },
      };
      const sent = await post(request, cfg, deadlineOf(input.remainingMs));
      if (!sent.ok) return { ok: false, error: `transcription failed: ${sent.error}` };
      const text = transcriptText(sent.body);
      return text.ok ? text : { ok: false, error: `transcription failed: ${text.error}` };
    },
    (error) => logger.warn('llm call failed', { purpose: 'transcription', model, error }),
  );
  return result.ok ? { ok: true, text: result.value, creditsUsed: result.creditsUsed } : result;
}

interface TelephoneAudio {
  wav: Uint8Array;
  durationMs: number;
}

/**
 * The speech model's answer as an 8 kHz 16-bit mono WAV with how long it plays, or why it cannot
 * be one. The audio code (wavefile) is a lazy module: only voice runs load it, never an HTTP run
 * in the same function.
 */
async function telephoneWav(bytes: Uint8Array): Promise<Outcome<TelephoneAudio>> {
  const { decodeWav, encodeWav, SAMPLE_RATE } = await import('#voice-audio');
  let samples: Int16Array;
  try {
    samples = decodeWav(bytes);
  } catch (error) {
    return { ok: false, error: `the speech model's answer is not a WAV file: ${quote((error as Error).message)}` };
  }
  if (samples.length === 0) return { ok: false, error: "the speech model's answer holds no audio" };
  return {
    ok: true,
    value: { wav: encodeWav(samples), durationMs: Math.round((samples.length / SAMPLE_RATE) * 1000) },
  };
}

/** `{text}` of a transcription answer, or why there is none. */
function transcriptText(bytes: Uint8Array): Outcome<string> {
  const raw = new TextDecoder().decode(bytes);
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { ok: false, error: `the transcription model's answer is not JSON: ${quote(raw)}` };
  }
  const text = (body as { text?: unknown } | null)?.text;
  if (typeof text !== 'string')
    return { ok: false, error: `the transcription model's answer has no text: ${quote(raw)}` };
  return { ok: true, value: text.trim() };
}
