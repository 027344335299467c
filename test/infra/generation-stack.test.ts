import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EvalPlatformStack, GENERATOR_TIMEOUT_MINUTES } from '../../infra/stack.js';
import { ENV } from '../../shared/config/env.js';
import { seenFromTop, serviceFunctions, templatesOf } from '../support/stack-templates.js';

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new EvalPlatformStack(app, 'GenerationTest', { env: { account: '123456789012', region: 'eu-west-1' } });
const json = Template.fromStack(stack).toJSON() as {
  Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
};
const resources = Object.entries(json.Resources);
const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
const logicalId = (prefix: string, type: string) => ofType(type).find(([id]) => id.startsWith(prefix))?.[0];

describe('CDK: the generation queue and the generator', () => {
  it('declares the generation queue with its own DLQ after 3 receives, encrypted, with a visibility above the generator timeout', () => {
    const queueId = logicalId('GenerationQueue', 'AWS::SQS::Queue')!;
    const dlqId = logicalId('GenerationDlq', 'AWS::SQS::Queue')!;
    expect(queueId).toBeDefined();
    expect(dlqId).toBeDefined();
    const queue = json.Resources[queueId]!.Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 3 });
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.VisibilityTimeout).toBeGreaterThan(GENERATOR_TIMEOUT_MINUTES * 60);
  });

  it('feeds the generator function from the generation queue with partial batch failures', () => {
    const generator = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('JobGenerator'));
    expect(generator).toBeDefined();
    const [id, fn] = generator!;
    expect(fn.Properties.Timeout).toBe(GENERATOR_TIMEOUT_MINUTES * 60);
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName?.Ref === id);
    expect(mapping![1].Properties).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [logicalId('GenerationQueue', 'AWS::SQS::Queue'), 'Arn'] },
    });
  });

  it('tells every function where the generation queue is; only the routes that start a generation may send to it', () => {
    const queueId = logicalId('GenerationQueue', 'AWS::SQS::Queue')!;
    // The service stack's functions and the route stacks' (the routes' are there).
    for (const { template, resource: fn, handler } of serviceFunctions(stack, templatesOf(stack))) {
      const vars = fn.Properties.Environment?.Variables ?? {};
      if (vars[ENV.tableName] && vars[ENV.bucketName]) {
        expect(seenFromTop(template, vars[ENV.generationQueueUrl]), handler).toEqual({ Ref: queueId });
      }
    }
    const queueArn = JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] });
    const rolesSending = ofType('AWS::IAM::Policy')
      .filter(([, p]) =>
        (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).some(
          (s) => JSON.stringify(s.Resource) === queueArn && [s.Action].flat().includes('sqs:SendMessage'),
        ),
      )
      .flatMap(([, p]) => (p.Properties.Roles as { Ref: string }[]).map((r) => r.Ref));
    expect(rolesSending.some((r) => r.startsWith('JobsRole'))).toBe(true);
    expect(rolesSending.some((r) => r.startsWith('ApiWriteGenerationQueueSend'))).toBe(true);
    expect(rolesSending.some((r) => r.startsWith('ApiRead'))).toBe(false);
  });
});
