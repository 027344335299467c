import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EvalPlatformStack, VOICE_TIMEOUT_MINUTES } from '../../infra/stack.js';
import { FUNCTION_MEMORY_MB } from '../../infra/function-memory.js';
import { ENV } from '../../shared/config/env.js';
import { seenFromTop, serviceFunctions, templatesOf } from '../support/stack-templates.js';

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new EvalPlatformStack(app, 'VoiceFiguresTest', { env: { account: '123456789012', region: 'eu-west-1' } });
const json = Template.fromStack(stack).toJSON() as {
  Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
};
const resources = Object.entries(json.Resources);
const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
const logicalId = (prefix: string, type: string) => ofType(type).find(([id]) => id.startsWith(prefix))?.[0];

describe('CDK: the voice queue and the voice figures job', () => {
  it('declares the voice queue with its own DLQ after 3 receives, encrypted, with a visibility above the job’s timeout', () => {
    const queueId = logicalId('VoiceQueue', 'AWS::SQS::Queue')!;
    const dlqId = logicalId('VoiceDlq', 'AWS::SQS::Queue')!;
    expect(queueId && dlqId).toBeTruthy();
    const queue = json.Resources[queueId]!.Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 3 });
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.VisibilityTimeout).toBeGreaterThan(VOICE_TIMEOUT_MINUTES * 60);
  });

  it('feeds the job one recording per invocation, with memory for a 2-hour recording decoded whole', () => {
    const [id, fn] = ofType('AWS::Lambda::Function').find(([fid]) => fid.startsWith('JobVoice'))!;
    expect(fn.Properties.Timeout).toBe(VOICE_TIMEOUT_MINUTES * 60);
    expect(fn.Properties.MemorySize).toBe(FUNCTION_MEMORY_MB.voice);
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName?.Ref === id);
    expect(mapping![1].Properties).toMatchObject({
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [logicalId('VoiceQueue', 'AWS::SQS::Queue'), 'Arn'] },
    });
  });

  it('tells every function where the voice queue is; only the jobs and the session writes may send to it', () => {
    const queueId = logicalId('VoiceQueue', 'AWS::SQS::Queue')!;
    for (const { template, resource: fn, handler } of serviceFunctions(stack, templatesOf(stack))) {
      const vars = fn.Properties.Environment?.Variables ?? {};
      if (vars[ENV.tableName] && vars[ENV.bucketName])
        expect(seenFromTop(template, vars[ENV.voiceQueueUrl]), handler).toEqual({ Ref: queueId });
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
    expect(rolesSending.some((r) => r.startsWith('ApiWrite') && r.includes('VoiceQueueSend'))).toBe(true);
    expect(rolesSending.some((r) => r.startsWith('ApiRead'))).toBe(false);
  });
});
