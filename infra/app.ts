import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EvalPlatformStack } from './stack.js';
import { voiceSettingsFromEnv } from './constructs/voice.js';
import { writeValidators } from './validators.js';

// Each route's bundle injects its precompiled validators: generated now, never committed.
await writeValidators();

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
  },
  // Telephony for voice runs: the deployment's Chime SDK phone number (docs/deploying.md).
  ...(voice ? { voice } : {}),
});
// cdk-nag's AwsSolutions pack: a new finding fails `cdk synth` (suppressions live in infra/nag.ts).
Aspects.of(app).add(new AwsSolutionsChecks());
