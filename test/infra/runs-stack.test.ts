import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_CONCURRENCY, EvalPlatformStack, queueSettings, RUNNER_TIMEOUT_MINUTES } from '../../infra/stack.js';
import { ENV } from '../../shared/config/env.js';
import { seenFromTop, serviceFunctions, templatesOf } from '../support/stack-templates.js';

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new EvalPlatformStack(app, 'RunsTest', { env: { account: '123456789012', region: 'eu-west-1' } });
const template = Template.fromStack(stack);
const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };
const resources = Object.entries(json.Resources);
const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
const logicalId = (prefix: string, type: string) => ofType(type).find(([id]) => id.startsWith(prefix))?.[0];

describe('CDK: the run queue and the runner', () => {
  it('declares the run queue with its own DLQ after 3 receives, encrypted, with a visibility above the runner timeout', () => {
    const queueId = logicalId('RunQueue', 'AWS::SQS::Queue')!;
    const dlqId = logicalId('RunDlq', 'AWS::SQS::Queue')!;
    expect(queueId).toBeDefined();
    expect(dlqId).toBeDefined();
    const queue = json.Resources[queueId]!.Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 3 });
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.VisibilityTimeout).toBeGreaterThan(RUNNER_TIMEOUT_MINUTES * 60);
    expect(json.Resources[dlqId]!.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it('feeds the runner function from the run queue with partial batch failures, and gives it the time for one call', () => {
    const runner = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('JobRunner'));
    expect(runner).toBeDefined();
    const [runnerId, fn] = runner!;
    expect(fn.Properties.Timeout).toBe(RUNNER_TIMEOUT_MINUTES * 60);
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.FunctionName?.Ref === runnerId,
    );
    expect(mapping).toBeDefined();
    // One job (one agent call at most) per invocation, no batching window, RUN_CONCURRENCY (50) at once.
    expect(mapping![1].Properties).toMatchObject({
      BatchSize: 1,
      MaximumBatchingWindowInSeconds: 0,
      ScalingConfig: { MaximumConcurrency: DEFAULT_CONCURRENCY.run },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [logicalId('RunQueue', 'AWS::SQS::Queue'), 'Arn'] },
    });
  });

  it('caps every queue consumer (runs, evaluations, webhooks, generation, voice): each event source sets its concurrency, batch size and batching window', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    expect(mappings).toHaveLength(5);
    for (const m of mappings) {
      expect(m.ScalingConfig?.MaximumConcurrency).toBeGreaterThanOrEqual(2);
      expect(m.BatchSize).toBeGreaterThanOrEqual(1);
      expect(m.MaximumBatchingWindowInSeconds).toBe(0);
    }
    const other = new EvalPlatformStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'RunsTuned', {
      env: { account: '123456789012', region: 'eu-west-1' },
      concurrency: { run: 200 },
    });
    const tuned = Object.values(
      Template.fromStack(other).toJSON().Resources as Record<string, { Type: string; Properties: any }>,
    ).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.BatchSize === 1);
    // One record per invocation: the run queue's consumer (as asked) and the voice job's (its default).
    expect(tuned.map((r) => r.Properties.ScalingConfig.MaximumConcurrency).sort((a, b) => a - b)).toEqual([5, 200]);
    expect(queueSettings({ run: 5000 }).run.maxConcurrency).toBe(1000);
  });

  it('tells every function where the run queue is, and never allows private networks', () => {
    const queueId = logicalId('RunQueue', 'AWS::SQS::Queue')!;
    // The service stack's functions and the route stacks' (the routes' are there).
    const functions = serviceFunctions(stack, templatesOf(stack));
    expect(functions.filter((f) => f.handler === 'runs/create')).toHaveLength(1);
    for (const { template, resource: fn, handler } of functions) {
      const vars = fn.Properties.Environment?.Variables ?? {};
      expect(vars[ENV.agentAllowPrivateNetworks], handler).toBeUndefined();
      if (vars[ENV.tableName] && vars[ENV.bucketName]) {
        expect(seenFromTop(template, vars[ENV.runQueueUrl]), handler).toEqual({ Ref: queueId });
      }
    }
  });

  it('lets POST /runs send to the run queue, and the jobs role send and consume', () => {
    const queueArn = { 'Fn::GetAtt': [logicalId('RunQueue', 'AWS::SQS::Queue'), 'Arn'] };
    const statementsOf = (rolePrefix: string) =>
      ofType('AWS::IAM::Policy')
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref.startsWith(rolePrefix)))
        .flatMap(
          ([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
        );
    const onQueue = (rolePrefix: string) =>
      statementsOf(rolePrefix)
        .filter((s) => JSON.stringify(s.Resource) === JSON.stringify(queueArn))
        .flatMap((s) => [s.Action].flat());
    expect(onQueue('ApiWriteRunQueueSend')).toContain('sqs:SendMessage');
    expect(onQueue('ApiWriteRunQueueSend')).not.toContain('sqs:ReceiveMessage');
    expect(onQueue('JobsRole')).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
    // Read routes never touch the run queue.
    expect(onQueue('ApiRead')).toEqual([]);
  });
});
