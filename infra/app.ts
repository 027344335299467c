import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EvalPlatformStack } from './stack.js';
import { voiceSettingsFromEnv } from './constructs/voice.js';
import { writeBuildModules } from './build-modules.js';

// What the bundles are built from beyond the sources (precompiled validators, static OTLP code,
// scope-hoisted packages, lazy modules): generated now, never committed.
await writeBuildModules();

function count(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2 || n > 1000)
    throw new Error(`a queue concurrency is a whole number from 2 to 1000 (given ${value})`);
  return n;
}

const app = new App();
const voice = voiceSettingsFromEnv(process.env);
new EvalPlatformStack(app, process.env.STACK_NAME ?? 'EvalPlatform', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  // The LLM of judge, simulated user and generator, from the deploying shell (docs/deploying.md).
  llm: {
    baseUrl: process.env.LLM_BASE_URL || undefined,
    apiKeySecretName: process.env.LLM_API_KEY_SECRET || undefined,
    simulatorModel: process.env.SIMULATOR_MODEL || undefined,
    generatorModel: process.env.GENERATOR_MODEL || undefined,
    ttsModel: process.env.TTS_MODEL || undefined,
    ttsVoice: process.env.TTS_VOICE || undefined,
    transcriptionModel: process.env.TRANSCRIPTION_MODEL || undefined,
  },
  // How many invocations each queue runs at once (docs/deploying.md); unset: the defaults.
  concurrency: {
    run: count(process.env.RUN_CONCURRENCY),
    evaluation: count(process.env.EVALUATION_CONCURRENCY),
    webhook: count(process.env.WEBHOOK_CONCURRENCY),
    generation: count(process.env.GENERATION_CONCURRENCY),
    voice: count(process.env.VOICE_CONCURRENCY),
  },
  // Telephony for voice runs: the deployment's Chime SDK phone number (docs/deploying.md).
  ...(voice ? { voice } : {}),
});
// cdk-nag's AwsSolutions pack: a new finding fails `cdk synth` (suppressions live in infra/nag.ts).
Aspects.of(app).add(new AwsSolutionsChecks());
