import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { EvalPlatformStack } from '../../infra/stack.js';
import { ENV } from '../../shared/config/env.js';
import { jobs, routes } from '../../shared/routes.js';
import { serviceFunctions, templatesOf } from '../support/stack-templates.js';

type Fn = { Type: string; Properties: { Handler?: string; Environment?: { Variables?: Record<string, unknown> } } };

function functionsOf(
  llm?: ConstructorParameters<typeof EvalPlatformStack>[2] extends infer P
    ? P extends { llm?: infer L }
      ? L
      : never
    : never,
) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EvalPlatformStack(app, 'LlmTest', { env: { account: '123456789012', region: 'eu-west-1' }, llm });
  // The service stack's functions (jobs) and the route stacks' (routes).
  return serviceFunctions(stack, templatesOf(stack))
    .map((f) => f.resource as Fn)
    .filter((r) => r.Properties.Environment?.Variables?.[ENV.queueUrl] !== undefined);
}

describe('LLM settings of a deployment', () => {
  it('reach every API and job function (not the authorizer), the key only as a Secrets Manager reference resolved at deploy time', () => {
    const fns = functionsOf({
      baseUrl: 'https://llm.example.com/v1',
      apiKeySecretName: 'eval/llm-key',
      simulatorModel: 'sim-model',
      generatorModel: 'gen-model',
      ttsModel: 'tts-model',
      ttsVoice: 'verse',
      transcriptionModel: 'stt-model',
    });
    expect(fns.length).toBe(routes.length + jobs.length);
    for (const fn of fns) {
      const vars = fn.Properties.Environment!.Variables!;
      expect(vars[ENV.llmBaseUrl]).toBe('https://llm.example.com/v1');
      expect(vars[ENV.simulatorModel]).toBe('sim-model');
      expect(vars[ENV.generatorModel]).toBe('gen-model');
      expect(vars[ENV.ttsModel]).toBe('tts-model');
      expect(vars[ENV.ttsVoice]).toBe('verse');
      expect(vars[ENV.transcriptionModel]).toBe('stt-model');
      expect(JSON.stringify(vars[ENV.llmApiKey])).toContain('{{resolve:secretsmanager:eval/llm-key:SecretString:::}}');
    }
  });

  it('set nothing when none are given (each LLM step then fails with "no … model is configured")', () => {
    for (const fn of functionsOf()) {
      const names = Object.keys(fn.Properties.Environment!.Variables!);
      for (const name of [
        ENV.llmBaseUrl,
        ENV.llmApiKey,
        ENV.simulatorModel,
        ENV.generatorModel,
        ENV.ttsModel,
        ENV.ttsVoice,
        ENV.transcriptionModel,
      ])
        expect(names).not.toContain(name);
    }
  });
});
