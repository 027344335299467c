import { describe, expect, it } from 'vitest';
import { App, Aspects, CfnResource, NestedStack, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EvalPlatformStack, AUTHORIZER_CACHE_SECONDS } from '../../infra/stack.js';
import { memoryOfHandler } from '../../infra/function-memory.js';
import {
  MAX_RESOURCES_PER_TEMPLATE,
  ROUTE_STACKS,
  routeGroup,
  routeStackOf,
} from '../../infra/constructs/api-routes.js';
import { routes, jobs, type Route } from '../../shared/routes.js';
import { TABLE } from '../../shared/db/table.js';
import {
  apiPathOf,
  seenFromTop,
  serviceFunctions,
  templatesOf,
  type StackTemplate,
} from '../support/stack-templates.js';

/** CloudFormation's limits per template: outputs, parameters. */
const MAX_OUTPUTS = 200;
const MAX_PARAMETERS = 200;

function synth() {
  // No bundling here (one test in bundling.test.ts bundles for real), no CloudFormation validator.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EvalPlatformStack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
  // cdk-nag's AwsSolutions pack runs in the same synthesis (as in infra/app.ts).
  Aspects.of(app).add(new AwsSolutionsChecks());
  // The resources of the operations nested stack an aspect of the app visits, as cdk-nag's does.
  const visitedInOperations = new Set<string>();
  Aspects.of(app).add({
    visit: (c) => {
      if (c instanceof CfnResource && Stack.of(c) === stack.operations) visitedInOperations.add(c.node.path);
    },
  });
  const template = Template.fromStack(stack);
  const operationsTemplate = Template.fromStack(stack.operations);
  return { stack, template, annotations: Annotations.fromStack(stack), operationsTemplate, visitedInOperations };
}

const { stack, template, annotations, operationsTemplate, visitedInOperations } = synth();
const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };
const resources = Object.entries(json.Resources);
const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
/** The service stack's template and each nested stack's (operations, the route stacks). */
const templates = templatesOf(stack);
const routeTemplates = templates.filter((t) => stack.routeStacks.includes(t.stack as never));
/** The resources of a type in every template, with the template holding each. */
const everywhere = (type: string) =>
  templates.flatMap((t) =>
    Object.entries(t.json.Resources)
      .filter(([, r]) => r.Type === type)
      .map(([id, r]) => [t, id, r] as const),
  );
/** The service's functions (AppFunctions), wherever they are. */
const functions = serviceFunctions(stack, templates);
/** A template's value as the service stack sees it (a nested parameter: the value passed to it). */
const seen = seenFromTop;
const nameOf = (t: StackTemplate) => t.stack.node.id;

describe('CDK stack', () => {
  it('has no unsuppressed cdk-nag AwsSolutions error or warning', () => {
    const message = (m: { id: string; entry: { data?: unknown } }) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`;
    expect(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')).map(message)).toEqual([]);
    expect(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')).map(message)).toEqual([]);
  });

  it('sees the nested operations stack’s resources in that check (cdk-nag reaches nested stacks)', () => {
    const nestedResources = Object.keys(operationsTemplate.toJSON().Resources as object);
    expect(nestedResources.length).toBeGreaterThan(20);
    expect(visitedInOperations.size).toBe(nestedResources.length);
    // A plain topic in a nested stack breaks SNS3 (publishers need not use TLS): the finding must
    // reach the parent's annotations, which the check above reads, as the operations stack's would.
    const small = new App();
    const parent = new Stack(small, 'Parent', { env: { account: '123456789012', region: 'eu-west-1' } });
    new Topic(new NestedStack(parent, 'Nested'), 'Plain');
    Aspects.of(small).add(new AwsSolutionsChecks());
    const found = Annotations.fromStack(parent).findError('*', Match.stringLikeRegexp('AwsSolutions-SNS3'));
    expect(found.map((m) => m.id)).toEqual(['/Parent/Nested/Plain/Resource']);
  });

  it('keeps each cdk-nag suppression with its reason in the template metadata, the route stacks’ too', () => {
    type Suppressions = { cdk_nag?: { rules_to_suppress: { id: string; reason: string }[] } } | undefined;
    const suppressed = templates.flatMap((t) => [
      ...((t.json.Metadata as Suppressions)?.cdk_nag?.rules_to_suppress ?? []),
      ...Object.values(t.json.Resources).flatMap((r) => (r.Metadata as Suppressions)?.cdk_nag?.rules_to_suppress ?? []),
    ]);
    expect(suppressed.length).toBeGreaterThan(0);
    for (const rule of suppressed) expect(rule.reason.length, rule.id).toBeGreaterThan(40);
    // A route stack acknowledges its functions' runtime and its methods' authorizer, nothing more.
    expect(routeTemplates).toHaveLength(Object.keys(ROUTE_STACKS).length);
    for (const t of routeTemplates) {
      const ids = (t.json.Metadata as Suppressions)?.cdk_nag?.rules_to_suppress.map((r) => r.id);
      expect(ids?.sort(), nameOf(t)).toEqual(['AwsSolutions-COG4', 'AwsSolutions-L1']);
    }
  });

  it('logs API access (JSON) and execution errors, and the data bucket’s server access', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: Match.objectLike({
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('requestId'),
      }),
      MethodSettings: Match.arrayWith([Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false })]),
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
    });
  });

  it('gives function roles no AWS managed policy', () => {
    const lambdaRoles = ofType('AWS::IAM::Role').filter(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'),
    );
    expect(lambdaRoles.length).toBeGreaterThan(2);
    for (const [id, r] of lambdaRoles) expect(r.Properties.ManagedPolicyArns, id).toBeUndefined();
  });

  it(`keeps every template, the service stack’s and each nested one’s, under ${MAX_RESOURCES_PER_TEMPLATE} resources (CloudFormation takes 500)`, () => {
    expect(MAX_RESOURCES_PER_TEMPLATE).toBe(450);
    expect(templates.map(nameOf).sort()).toEqual(['Operations', 'Test', ...Object.keys(ROUTE_STACKS)].sort());
    for (const t of templates) {
      expect(Object.keys(t.json.Resources).length, nameOf(t)).toBeLessThan(MAX_RESOURCES_PER_TEMPLATE);
    }
    // The service stack keeps room of its own: the routes are nested (about 115 resources at 115 routes).
    expect(resources.length).toBeLessThan(200);
  });

  it('keeps every template’s outputs and parameters under CloudFormation’s 200 each', () => {
    for (const t of templates) {
      expect(Object.keys(t.json.Outputs ?? {}).length, nameOf(t)).toBeLessThan(MAX_OUTPUTS);
      expect(Object.keys(t.json.Parameters ?? {}).length, nameOf(t)).toBeLessThan(MAX_PARAMETERS);
      if (t.resourceId)
        expect(Object.keys(t.passed).sort(), nameOf(t)).toEqual(Object.keys(t.json.Parameters ?? {}).sort());
    }
  });

  it('has one method per route, every one protected by the TOKEN authorizer, in whichever template it is', () => {
    const authorizers = ofType('AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const authorizerRef = { Ref: authorizers[0]![0] };
    const methods = everywhere('AWS::ApiGateway::Method').filter(
      ([, , m]) => m.Properties.HttpMethod !== 'OPTIONS' && m.Properties.AuthorizationType !== 'NONE',
    );
    expect(methods).toHaveLength(routes.length);
    const byRoute = new Map(
      methods.map(([t, , m]) => [
        `${m.Properties.HttpMethod} ${apiPathOf(t, m.Properties.ResourceId)}`,
        [t, m] as const,
      ]),
    );
    for (const route of routes) {
      const found = byRoute.get(`${route.method} ${route.path}`);
      expect(found, `${route.method} ${route.path}`).toBeDefined();
      const [t, m] = found!;
      expect(nameOf(t)).toBe(routeStackOf(route));
      expect(m.Properties.AuthorizationType).toBe('CUSTOM');
      // The service stack's authorizer, on the service stack's API.
      expect(seen(t, m.Properties.AuthorizerId)).toEqual(authorizerRef);
      expect(seen(t, m.Properties.RestApiId)).toEqual({ Ref: ofType('AWS::ApiGateway::RestApi')[0]![0] });
    }
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
      RestApiId: { Ref: ofType('AWS::ApiGateway::RestApi')[0]![0] },
    });
  });

  it('puts each route in the stack of its first path segment, each segment in one stack, and no path part twice', () => {
    const assigned = Object.values(ROUTE_STACKS).flat() as string[];
    expect(new Set(assigned).size).toBe(assigned.length);
    // No stale entry: every segment of the table has routes.
    expect([...assigned].sort()).toEqual([...new Set(routes.map(routeGroup))].sort());
    for (const t of routeTemplates) {
      const here = routes.filter((r) => routeStackOf(r) === nameOf(t));
      expect(here.length, nameOf(t)).toBeGreaterThan(0);
      expect(
        functions
          .filter((f) => f.template === t)
          .map((f) => f.handler)
          .sort(),
      ).toEqual(here.map((r) => r.handler).sort());
    }
    // A segment's path resources are all in its stack: no path is created by two templates.
    const paths = everywhere('AWS::ApiGateway::Resource').map(([t, id]) => apiPathOf(t, { Ref: id }));
    expect(new Set(paths).size).toBe(paths.length);
    for (const [t, id] of everywhere('AWS::ApiGateway::Resource')) {
      const group = routeGroup({ path: apiPathOf(t, { Ref: id }) });
      const owner = (Object.keys(ROUTE_STACKS) as (keyof typeof ROUTE_STACKS)[]).find((n) =>
        (ROUTE_STACKS[n] as readonly string[]).includes(group),
      );
      expect(nameOf(t), group).toBe(owner ?? 'Test');
    }
    // A route of a segment no stack holds fails the synth, saying where to add it.
    const stray: Route = { method: 'GET', path: '/stray/{id}', handler: 'stray/get', access: 'member', data: 'read' };
    expect(() => routeStackOf(stray)).toThrow("add 'stray' to one stack of ROUTE_STACKS");
  });

  it('deploys the API after the route stacks, into the stage', () => {
    const deployments = everywhere('AWS::ApiGateway::Deployment');
    expect(deployments).toHaveLength(1);
    const [, deploymentId, deployment] = deployments[0]!;
    for (const t of routeTemplates) expect(deployment.DependsOn, nameOf(t)).toContain(t.resourceId);
    const [, stage] = ofType('AWS::ApiGateway::Stage')[0]!;
    expect(stage.Properties.DeploymentId).toEqual({ Ref: deploymentId });
  });

  it('gives the deployment a new logical id, a new snapshot of the methods, when the route table changes', () => {
    const deploymentIdOf = (s: Stack) =>
      Object.entries(Template.fromStack(s).toJSON().Resources as Record<string, { Type: string }>).find(
        ([, r]) => r.Type === 'AWS::ApiGateway::Deployment',
      )![0];
    // The route table without its last route; the worker's other files share the module: put back below.
    const table = routes as Route[];
    const last = table.pop()!;
    try {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const fewer = new EvalPlatformStack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
      expect(deploymentIdOf(fewer)).not.toBe(ofType('AWS::ApiGateway::Deployment')[0]![0]);
    } finally {
      table.push(last);
    }
    expect(routes.at(-1)).toBe(last);
  });

  it('serves the API reference (GET /openapi.json, /docs, /docs/{asset}) without the authorizer, from one small function', () => {
    const pathOf = (ref: unknown): string => {
      const id = (ref as { Ref?: string }).Ref;
      if (!id) return '';
      const r = json.Resources[id]!.Properties;
      return `${pathOf(r.ParentId)}/${r.PathPart}`;
    };
    const open = ofType('AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.AuthorizationType === 'NONE' && m.Properties.HttpMethod !== 'OPTIONS',
    );
    expect(open.map(([, m]) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`).sort()).toEqual([
      'GET /docs',
      'GET /docs/{asset}',
      'GET /openapi.json',
    ]);
    for (const [, m] of open) expect(m.Properties.AuthorizerId).toBeUndefined();
    // Every other method, wherever it is, needs the authorizer.
    for (const t of templates.slice(1)) {
      for (const m of Object.values(t.json.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Method')) {
        expect(m.Properties.AuthorizationType, nameOf(t)).toBe('CUSTOM');
      }
    }
    const targets = new Set(open.map(([, m]) => JSON.stringify(m.Properties.Integration.Uri)));
    expect(targets.size).toBe(1);
    template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: 256, Handler: 'index.handler' });
  });

  it('templates the gateway’s own answers to {error, message}', () => {
    const expected: Record<string, string | undefined> = {
      UNAUTHORIZED: '401',
      ACCESS_DENIED: '403',
      THROTTLED: '429',
      MISSING_AUTHENTICATION_TOKEN: '404',
      DEFAULT_4XX: undefined,
      DEFAULT_5XX: undefined,
    };
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    for (const [type, status] of Object.entries(expected)) {
      const r = responses.find((x) => x.ResponseType === type);
      expect(r, type).toBeDefined();
      if (status) expect(r!.StatusCode).toBe(status);
      const body = r!.ResponseTemplates['application/json'] as string;
      expect(body).toMatch(/"error":/);
      expect(body).toMatch(/"message":/);
    }
    const unauthorized = responses.find((x) => x.ResponseType === 'UNAUTHORIZED')!;
    expect(JSON.parse(unauthorized.ResponseTemplates['application/json'])).toEqual({
      error: 'Unauthorized',
      message: 'missing or invalid API key',
    });
  });

  it('passes request and response bodies as bytes (OTLP protobuf and gzip), and routes POST /otel/v1/traces through the authorizer', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    const otel = everywhere('AWS::ApiGateway::Method').filter(
      ([t, , r]) => r.Properties.HttpMethod === 'POST' && apiPathOf(t, r.Properties.ResourceId) === '/otel/v1/traces',
    );
    expect(otel).toHaveLength(1);
    for (const [, , m] of otel) expect(m.Properties.AuthorizationType).toBe('CUSTOM');
  });

  it('throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 })]),
    });
  });

  it('defines the table with its keys, indexes, TTL, PITR, deletion protection and RETAIN', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      TimeToLiveSpecification: { AttributeName: TABLE.timeToLiveAttribute, Enabled: true },
      GlobalSecondaryIndexes: TABLE.indexes.map((i) =>
        Match.objectLike({
          IndexName: i.name,
          KeySchema: [
            { AttributeName: i.partitionKey, KeyType: 'HASH' },
            { AttributeName: i.sortKey, KeyType: 'RANGE' },
          ],
        }),
      ),
    });
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('makes the bucket private, encrypted and TLS-only', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('runs every function on Node.js 22, arm64, with tracing', () => {
    // CDK's own BucketDeployment handler (it copies the console into its bucket) is not a function of the service.
    const all = everywhere('AWS::Lambda::Function').filter(
      ([, id, f]) =>
        f.Properties.Runtime !== undefined &&
        f.Properties.Handler === 'index.handler' &&
        !id.startsWith('CustomCDKBucketDeployment'),
    );
    // + the authorizer and the API reference's function
    expect(all.length).toBe(routes.length + jobs.length + 2);
    expect(functions).toHaveLength(all.length);
    for (const [t, id, f] of all) {
      expect(f.Properties.Runtime, `${nameOf(t)} ${id}`).toBe('nodejs22.x');
      expect(f.Properties.Architectures).toEqual(['arm64']);
      expect(f.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
    for (const [, , lg] of everywhere('AWS::Logs::LogGroup')) expect(lg.Properties.RetentionInDays).toBe(30);
    // The route functions log to the service stack's API log group, as the authorizer does.
    const authorizerLogs = functions.find((f) => f.handler === 'authorizer')!.resource.Properties.LoggingConfig
      .LogGroup;
    for (const f of functions.filter((x) => x.template.resourceId)) {
      expect(seen(f.template, f.resource.Properties.LoggingConfig.LogGroup), f.handler).toEqual(authorizerLogs);
    }
  });

  it('gives every function the memory bench:runs prices it at (infra/function-memory.ts)', () => {
    for (const f of functions) expect(f.resource.Properties.MemorySize, f.handler).toBe(memoryOfHandler(f.handler));
    expect(new Set(functions.map((f) => f.resource.Properties.MemorySize))).toEqual(new Set([256, 512, 1024, 3008]));
  });

  it('wires the two schedules every 5 minutes (and the webhook sweep every minute) and the evaluator to the queue with a DLQ after 3 receives', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression).sort()).toEqual([
      'rate(1 minute)',
      'rate(5 minutes)',
      'rate(5 minutes)',
    ]);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }) });
  });

  it('delivers webhooks from their own queue (DLQ after 3 receives) to the deliverer, which every sender knows', () => {
    const queues = ofType('AWS::SQS::Queue');
    const webhookQueue = queues.find(([id]) => id.startsWith('WebhookQueue'));
    const webhookDlq = queues.find(([id]) => id.startsWith('WebhookDlq'));
    expect(webhookQueue && webhookDlq).toBeTruthy();
    expect(webhookQueue![1].Properties.RedrivePolicy).toMatchObject({
      maxReceiveCount: 3,
      deadLetterTargetArn: { 'Fn::GetAtt': [webhookDlq![0], 'Arn'] },
    });
    const deliverer = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('JobDeliverer'))!;
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.FunctionName.Ref === deliverer[0],
    )!;
    expect(mapping[1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [webhookQueue![0], 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // Lambda requires the queue's visibility timeout to cover the function's.
    expect(webhookQueue![1].Properties.VisibilityTimeout).toBeGreaterThanOrEqual(deliverer[1].Properties.Timeout);
    // Every function of the service (they all get the table) but the authorizer; not the reference's file server or CDK's own.
    const service = functions.filter(
      (f) => f.handler !== 'authorizer' && f.resource.Properties.Environment?.Variables?.TABLE_NAME !== undefined,
    );
    expect(service.length).toBe(routes.length + jobs.length);
    for (const { template: t, resource: f } of service) {
      expect(seen(t, f.Properties.Environment.Variables.WEBHOOK_QUEUE_URL)).toEqual({ Ref: webhookQueue![0] });
      // Deployed functions never reach private networks.
      expect(f.Properties.Environment.Variables.AGENT_ALLOW_PRIVATE_NETWORKS).toBeUndefined();
    }
  });

  it('grants read routes read-only table access', () => {
    const policies = ofType('AWS::IAM::Policy');
    const actionsOfRole = (roleLogicalId: string) =>
      policies
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleLogicalId))
        .flatMap(([, p]) =>
          (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) => [s.Action].flat()),
        );
    const readRoles = ofType('AWS::IAM::Role')
      .filter(([id]) => id.startsWith('ApiRead'))
      .map(([id]) => id);
    expect(readRoles.length).toBeGreaterThan(0);
    for (const role of readRoles) {
      const actions = actionsOfRole(role);
      expect(actions).toContain('dynamodb:GetItem');
      expect(actions.filter((a) => /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/.test(a))).toEqual([]);
    }
    const writeRole = ofType('AWS::IAM::Role').find(([id]) => id.startsWith('ApiWrite'))![0];
    expect(actionsOfRole(writeRole)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']));
    // every read route's function uses a read role (the service stack's, wherever the function is)
    const readRouteCount = routes.filter((r) => r.data === 'read').length;
    const fnsOnReadRoles = functions.filter((f) =>
      readRoles.includes((seen(f.template, f.resource.Properties.Role) as any)?.['Fn::GetAtt']?.[0]),
    );
    expect(fnsOnReadRoles).toHaveLength(readRouteCount);
    for (const f of fnsOnReadRoles) {
      expect(routes.find((r) => r.handler === f.handler)?.data, f.handler).toBe('read');
    }
  });
});
