import { ENV, optionalEnv } from '../config/env.js';
import { getModel } from '../db/models.js';

/**
 * Which model each LLM step uses. A name is looked up as an evaluator-model record:
 * the record gives the provider's model id and the credits per call; a name without a record is
 * sent as it is and costs 1 credit.
 */
export const DEFAULT_SIMULATOR_MODEL = 'gpt-4.1-mini';
export const DEFAULT_GENERATOR_MODEL = 'gpt-4.1-mini';
/** Voice runs (shared/llm/speech.ts): text to speech, its voice, and speech to text. */
export const DEFAULT_TTS_MODEL = 'gpt-4o-mini-tts';
export const DEFAULT_TTS_VOICE = 'alloy';
export const DEFAULT_TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';

const simulatorModel = optionalEnv(ENV.simulatorModel) ?? DEFAULT_SIMULATOR_MODEL;
const generatorModel = optionalEnv(ENV.generatorModel) ?? DEFAULT_GENERATOR_MODEL;

export function simulatorModelName(): string {
  return simulatorModel;
}

/** The generator's model: the test's `models[0]`, else GENERATOR_MODEL. */
export function generatorModelName(test?: { models?: readonly string[] | null }): string {
  return test?.models?.[0] ?? generatorModel;
}

/** `{model, creditsModelName}` for `callLlm`: the record's provider model id, or the name itself. */
export async function resolveModel(name: string): Promise<{ model: string; creditsModelName: string }> {
  const record = await getModel(name);
  return { model: record?.providerModelId ?? name, creditsModelName: name };
}
