import { describe, expect, it } from 'vitest';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EvalPlatformStack } from '../../infra/stack.js';
import {
  CALL_CONTROL_TIMEOUT_SECONDS,
  CHIME_VOICE_PRINCIPAL,
  DEFAULT_VOICE_ANSWER_SECONDS,
  voiceSettingsFromEnv,
} from '../../infra/constructs/voice.js';
import { alarmNameOf, functionAlarmName } from '../../infra/constructs/operations.js';
import { MAX_RESOURCES_PER_TEMPLATE, ROUTE_STACKS } from '../../infra/constructs/api-routes.js';
import { ENV } from '../../shared/config/env.js';
import { seenFromTop, serviceFunctions, templatesOf } from '../support/stack-templates.js';
import { memoryOfHandler } from '../../infra/function-memory.js';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };
type TemplateJson = {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
};

const ACCOUNT = '123456789012';
const FROM = '+14155550100';

/** The service stack without bundling or the CloudFormation validator (as test/infra/stack.test.ts), cdk-nag on. */
function synth(voice?: { fromNumber: string; answerSeconds?: number }) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EvalPlatformStack(app, 'Test', {
    env: { account: ACCOUNT, region: 'us-east-1' },
    ...(voice ? { voice } : {}),
  });
  Aspects.of(app).add(new AwsSolutionsChecks());
  return { stack, parent: Template.fromStack(stack).toJSON() as TemplateJson };
}

const ofType = (t: TemplateJson, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
/** The logical id of a function in its stack (the parent, or a route stack), by its handler. */
const functionIdOf = (stack: EvalPlatformStack, handler: string) => {
  const fn = stack.node.findAll().find((c) => (c as { handler?: string }).handler === handler) as
    | { fn: { node: { defaultChild: unknown } } }
    | undefined;
  const cfn = fn!.fn.node.defaultChild as CfnFunction;
  return Stack.of(cfn).getLogicalId(cfn);
};
const policyStatements = (t: TemplateJson) =>
  ofType(t, 'AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[]);
const actionsOf = (s: Record<string, any>) => [s.Action].flat() as string[];

describe('voice: without VOICE_FROM_NUMBER', () => {
  const { stack, parent } = synth();

  it('makes no Voice stack and no SIP media application anywhere', () => {
    expect(stack.voice).toBeUndefined();
    const nested = ofType(parent, 'AWS::CloudFormation::Stack').map(([id]) => id.replace(/NestedStack.*$/, ''));
    // operations and the routes only
    expect(nested.sort()).toEqual(['Operations', ...Object.keys(ROUTE_STACKS)].sort());
    for (const t of templatesOf(stack)) {
      expect(ofType(t.json, 'AWS::Chime::SipMediaApplication')).toEqual([]);
      expect(JSON.stringify(t.json)).not.toContain(CHIME_VOICE_PRINCIPAL);
    }
  });

  it('gives the runner no telephony variables and no role any chime:* action', () => {
    const runner = parent.Resources[functionIdOf(stack, 'jobs/runner')]!;
    const variables = runner.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables[ENV.sipMediaApplicationId]).toBeUndefined();
    expect(variables[ENV.voiceFromNumber]).toBeUndefined();
    expect(
      policyStatements(parent)
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('chime:')),
    ).toEqual([]);
  });
});

describe('voice: with VOICE_FROM_NUMBER', () => {
  const { stack, parent } = synth({ fromNumber: FROM });
  const voice = stack.voice!;
  const nested = Template.fromStack(voice).toJSON() as TemplateJson;
  const operations = Template.fromStack(stack.operations).toJSON() as TemplateJson;
  const voiceStackId = ofType(parent, 'AWS::CloudFormation::Stack').find(([id]) =>
    id.startsWith('VoiceNestedStack'),
  )![0];
  const callControlId = voice.getLogicalId(voice.callControl.fn.node.defaultChild as CfnFunction);
  const callControl = nested.Resources[callControlId]!;
  const [smaId, sma] = ofType(nested, 'AWS::Chime::SipMediaApplication')[0]!;
  /** A value of the Voice stack's output as the parent reads it. */
  const outputRead = (value: unknown) => {
    const [resource, attribute] = (value as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
    expect(resource).toBe(voiceStackId);
    return nested.Outputs![attribute.replace(/^Outputs\./, '')]!.Value;
  };

  it('puts the SIP media application in a nested Voice stack, its endpoint the call-control function', () => {
    expect(ofType(parent, 'AWS::Chime::SipMediaApplication')).toEqual([]);
    expect(ofType(nested, 'AWS::Chime::SipMediaApplication')).toHaveLength(1);
    expect(sma.Properties).toEqual({
      Name: 'Test-voice',
      AwsRegion: 'us-east-1',
      Endpoints: [{ LambdaArn: { 'Fn::GetAtt': [callControlId, 'Arn'] } }],
    });
    expect(voice.callControl.handler).toBe('jobs/call-control');
  });

  it('lets Chime’s principal, from this account only, invoke the call-control function before the application exists', () => {
    const permissions = ofType(nested, 'AWS::Lambda::Permission');
    expect(permissions).toHaveLength(1);
    const [permissionId, permission] = permissions[0]!;
    expect(permission.Properties).toEqual({
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [callControlId, 'Arn'] },
      Principal: CHIME_VOICE_PRINCIPAL,
      SourceAccount: ACCOUNT,
    });
    expect(sma.DependsOn).toContain(permissionId);
    expect(smaId).toBeDefined();
  });

  it('lets Chime’s principal read and write voice audio in the data bucket, for this account only', () => {
    const statements = ofType(parent, 'AWS::S3::BucketPolicy').flatMap(
      ([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[],
    );
    const chime = statements.filter((s) => s.Principal?.Service === CHIME_VOICE_PRINCIPAL);
    expect(chime.map(actionsOf).sort()).toEqual([['s3:GetObject'], ['s3:PutObject', 's3:PutObjectAcl']]);
    for (const s of chime) {
      expect(s.Effect).toBe('Allow');
      expect(s.Condition).toEqual({ StringEquals: { 'aws:SourceAccount': ACCOUNT } });
      expect(s.Resource).toEqual({
        'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Bucket/), 'Arn'] }, '/orgs/*/voice/*']],
      });
    }
  });

  it('gives the runner the SIP media application and the number, and the right to place and update its calls only', () => {
    const runner = parent.Resources[functionIdOf(stack, 'jobs/runner')]!;
    const variables = runner.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables[ENV.voiceFromNumber]).toBe(FROM);
    expect(outputRead(variables[ENV.sipMediaApplicationId])).toEqual({
      'Fn::GetAtt': [smaId, 'SipMediaApplicationId'],
    });
    // The role the runner runs as.
    const roleId = (runner.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const chime = ofType(parent, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Record<string, any>[])
      .filter((s) => actionsOf(s).some((a) => a.startsWith('chime:')));
    expect(chime).toHaveLength(1);
    expect(actionsOf(chime[0]!)).toEqual([
      'chime:CreateSipMediaApplicationCall',
      'chime:UpdateSipMediaApplicationCall',
    ]);
    expect(chime[0]!.Resource).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:chime:us-east-1:${ACCOUNT}:sma/`, expect.anything()]],
    });
    expect(outputRead(chime[0]!.Resource['Fn::Join'][1][3])).toEqual({
      'Fn::GetAtt': [smaId, 'SipMediaApplicationId'],
    });
    // No other function of the parent or a route stack gets the application's id but the runs
    // route (in a route stack: the parent passes it the Voice stack's output).
    const holding = serviceFunctions(stack, templatesOf(stack)).filter(
      (f) => f.resource.Properties.Environment?.Variables?.[ENV.sipMediaApplicationId] !== undefined,
    );
    expect(holding.map((f) => f.handler).sort()).toEqual(['jobs/runner', 'runs/create']);
    for (const f of holding) {
      const variables = f.resource.Properties.Environment.Variables as Record<string, unknown>;
      expect(variables[ENV.voiceFromNumber], f.handler).toBe(FROM);
      expect(outputRead(seenFromTop(f.template, variables[ENV.sipMediaApplicationId])), f.handler).toEqual({
        'Fn::GetAtt': [smaId, 'SipMediaApplicationId'],
      });
    }
  });

  it('builds the call-control function like every function: JSON logs, X-Ray, its answer limit, Chime’s 5 seconds', () => {
    expect(callControl.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: CALL_CONTROL_TIMEOUT_SECONDS,
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON' },
      MemorySize: memoryOfHandler('jobs/call-control'),
    });
    expect(CALL_CONTROL_TIMEOUT_SECONDS).toBe(5);
    const variables = callControl.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables[ENV.voiceAnswerSeconds]).toBe(String(DEFAULT_VOICE_ANSWER_SECONDS));
    expect(DEFAULT_VOICE_ANSWER_SECONDS).toBe(30);
    for (const name of [ENV.tableName, ENV.bucketName, ENV.runQueueUrl]) expect(variables[name], name).toBeDefined();
  });

  it('lets the call-control function read and write the table, send to the run queue and read voice audio, nothing more', () => {
    const statements = policyStatements(nested);
    const actions = statements.flatMap(actionsOf);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:Query', 'sqs:SendMessage', 's3:GetObject*']),
    );
    expect(actions.filter((a) => /^s3:(Put|Delete)/.test(a) || a.startsWith('chime:'))).toEqual([]);
    const s3 = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(JSON.stringify(s3)).toContain('/orgs/*/voice/*');
    expect(JSON.stringify(s3)).not.toMatch(/"\/\*"/);
    // The run queue the parent passes in.
    const sqs = statements.find((s) => actionsOf(s).includes('sqs:SendMessage'))!;
    const runQueueId = ofType(parent, 'AWS::SQS::Queue').find(([id]) => id.startsWith('RunQueue'))![0];
    const voiceStack = parent.Resources[voiceStackId]!;
    expect(voiceStack.Properties.Parameters[(sqs.Resource as { Ref: string }).Ref]).toEqual({
      'Fn::GetAtt': [runQueueId, 'Arn'],
    });
  });

  it('alarms on the call-control function’s errors, like every job', () => {
    const alarms = ofType(operations, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const passed = ofType(parent, 'AWS::CloudFormation::Stack').find(([id]) =>
      id.startsWith('OperationsNestedStack'),
    )![1].Properties.Parameters as Record<string, unknown>;
    for (const metricName of ['Errors'] as const) {
      const alarm = alarms.find(
        (a) => a.AlarmName === alarmNameOf('Test', functionAlarmName('jobs/call-control', metricName)),
      );
      expect(alarm, metricName).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: metricName });
      const dimension = (alarm!.Dimensions as { Name: string; Value: { Ref: string } }[])[0]!;
      expect(dimension.Name).toBe('FunctionName');
      expect(outputRead(passed[dimension.Value.Ref])).toEqual({ Ref: callControlId });
    }
  });

  it('keeps cdk-nag clean, every template under 450 resources and the Voice stack’s references few', () => {
    const annotations = Annotations.fromStack(stack);
    const message = (m: { id: string; entry: { data?: unknown } }) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`;
    expect(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')).map(message)).toEqual([]);
    expect(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')).map(message)).toEqual([]);
    for (const t of templatesOf(stack)) {
      expect(Object.keys(t.json.Resources).length, t.stack.node.id).toBeLessThan(MAX_RESOURCES_PER_TEMPLATE);
    }
    // In: the table, the bucket and the run queue (name or URL, and ARN); out: the application's id
    // and the function's name (for its alarms).
    expect(Object.keys(nested.Parameters ?? {})).toHaveLength(6);
    expect(Object.keys(nested.Outputs ?? {})).toHaveLength(2);
  });

  it('takes the answer limit from the deploy', () => {
    const { stack: other } = synth({ fromNumber: FROM, answerSeconds: 45 });
    const t = Template.fromStack(other.voice!);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.voiceAnswerSeconds]: '45' }) },
    });
  });
});

describe('voice: the deploy’s settings', () => {
  it('fails the synth on a number that is not E.164, saying what E.164 is', () => {
    for (const bad of ['0044 20 7183 8750', '14155550100', '+1 415 555 0100', '+1415555010012345']) {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      expect(
        () =>
          new EvalPlatformStack(app, 'Bad', {
            env: { account: ACCOUNT, region: 'us-east-1' },
            voice: { fromNumber: bad },
          }),
        bad,
      ).toThrow(`VOICE_FROM_NUMBER=${JSON.stringify(bad)} is not an E.164 phone number: a +, the country code`);
    }
  });

  it('fails the synth on an answer longer than ten minutes or under a second', () => {
    for (const bad of [0, 601, 3600]) {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      expect(
        () =>
          new EvalPlatformStack(app, 'Bad', {
            env: { account: ACCOUNT, region: 'us-east-1' },
            voice: { fromNumber: FROM, answerSeconds: bad },
          }),
        String(bad),
      ).toThrow(`VOICE_ANSWER_SECONDS=${bad} is not a whole number of seconds from 1 to 600`);
    }
  });

  it('reads VOICE_FROM_NUMBER and VOICE_ANSWER_SECONDS from the deploying shell', () => {
    expect(voiceSettingsFromEnv({})).toBeUndefined();
    expect(voiceSettingsFromEnv({ VOICE_FROM_NUMBER: '' })).toBeUndefined();
    expect(voiceSettingsFromEnv({ VOICE_FROM_NUMBER: FROM })).toEqual({ fromNumber: FROM });
    expect(voiceSettingsFromEnv({ VOICE_FROM_NUMBER: FROM, VOICE_ANSWER_SECONDS: '20' })).toEqual({
      fromNumber: FROM,
      answerSeconds: 20,
    });
    expect(() => voiceSettingsFromEnv({ VOICE_FROM_NUMBER: FROM, VOICE_ANSWER_SECONDS: 'half a minute' })).toThrow(
      'VOICE_ANSWER_SECONDS="half a minute" is not a whole number of seconds',
    );
  });
});
