import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { EvalPlatformStack } from '../../infra/stack.js';
import { jobs, routes } from '../../shared/routes.js';
import {
  AppFunction,
  DEFAULT_LOG_LEVEL,
  LOG_LEVEL_CONTEXT,
  PROJECT_ROOT,
} from '../../infra/constructs/app-function.js';
import {
  API_5XX_PERCENT_THRESHOLD,
  API_P99_LATENCY_THRESHOLD_MS,
  DLQ_MESSAGES_THRESHOLD,
  FUNCTION_ALARM_THRESHOLD,
  MAX_ALARMS,
  MAX_ALARMS_PER_STATUS_WIDGET,
  MAX_METRICS_PER_ALARM,
  QUEUE_AGE_THRESHOLD_SECONDS,
  TABLE_OPERATIONS,
  alarmNameOf,
  dashboardNameOf,
  functionAlarmName,
} from '../../infra/constructs/operations.js';
import { MAX_RESOURCES_PER_TEMPLATE } from '../../infra/constructs/api-routes.js';
import { ENV } from '../../shared/config/env.js';
import { refFromTop, serviceFunctions, templatesOf } from '../support/stack-templates.js';
import { METRIC, METRICS_NAMESPACE, SERVICE_DIMENSION, SERVICE_NAME } from '../../shared/observability/metric-names.js';

type Resource = { Type: string; Properties: Record<string, any> };
type TemplateJson = {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, { Type: string }>;
  Outputs?: Record<string, { Value: unknown }>;
};
type Dimension = { Name: string; Value: unknown };
type MetricStat = {
  Metric: { Namespace: string; MetricName: string; Dimensions?: Dimension[] };
  Period: number;
  Stat: string;
};
type Query = { Id: string; Expression?: string; MetricStat?: MetricStat; ReturnData?: boolean };

/** CloudFormation's limit of parameters per template. */
const MAX_PARAMETERS = 200;

// No bundling, no CloudFormation validator (as test/infra/stack.test.ts); cdk-nag is checked there.
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new EvalPlatformStack(app, 'OpsTest', { env: { account: '123456789012', region: 'eu-west-1' } });
/** The service stack's template (functions, queues, API, table) and the nested operations stack's. */
const parent = Template.fromStack(stack).toJSON() as TemplateJson;
const nested = Template.fromStack(stack.operations).toJSON() as TemplateJson;
const parentResources = Object.entries(parent.Resources);
const nestedResources = Object.entries(nested.Resources);
const ofType = (type: string) => parentResources.filter(([, r]) => r.Type === type);
const nestedOfType = (type: string) => nestedResources.filter(([, r]) => r.Type === type);
const alarms = nestedOfType('AWS::CloudWatch::Alarm').map(([id, r]) => [id, r.Properties] as const);
const topicId = nestedOfType('AWS::SNS::Topic').map(([id]) => id);

/** The parent's resource that deploys the nested stack, and the values it passes to its parameters. */
const nestedStackResources = ofType('AWS::CloudFormation::Stack');
const nestedStackResource = nestedStackResources.find(([id]) => id.startsWith('OperationsNestedStack'))!;
const passed = (nestedStackResource[1].Properties.Parameters ?? {}) as Record<string, unknown>;

/**
 * A value of the nested template as the parent sees it: a reference to a nested parameter is the
 * value the parent passes to it (e.g. `{Ref: <function id>}` for a function's name).
 */
function resolved(value: unknown): unknown {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  if (typeof ref === 'string' && nested.Parameters?.[ref]) return passed[ref];
  return value;
}

/** The service stack's template and its nested ones' (the route stacks hold the routes' functions). */
const templates = templatesOf(stack);
/**
 * The functions of the service, in the service stack (jobs, the authorizer, the reference) or a
 * route stack: all but CDK's own BucketDeployment handler (it copies the console). Each with how
 * the service stack names it: `{Ref}` to its own, a route stack's output for a nested one.
 */
const functions = serviceFunctions(stack, templates).map((f) => ({
  ...f,
  key: `${f.template.stack.node.id}/${f.id}`,
  ref: refFromTop(f.template, f.id),
}));
const refOf = (id: string) => ({ Ref: id });
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Dimensions as the parent sees them. */
const dimensionsOf = (dims: Dimension[] | undefined) =>
  (dims ?? []).map((d) => ({ Name: d.Name, Value: resolved(d.Value) }));

/** The metric-math queries of an alarm that fetch a metric. */
const statsOf = (alarm: Record<string, any>): MetricStat[] =>
  ((alarm.Metrics ?? []) as Query[]).flatMap((q) => (q.MetricStat ? [q.MetricStat] : []));
/** The expression an alarm watches (its one query with ReturnData not false). */
const watchedExpression = (alarm: Record<string, any>): string | undefined =>
  ((alarm.Metrics ?? []) as Query[]).find((q) => q.Expression !== undefined && q.ReturnData !== false)?.Expression;

/** The alarms on an AWS/Lambda metric whose only dimension is the function's name (as the service stack names it). */
const lambdaAlarmsNaming = (functionRef: unknown, metricName: string) =>
  alarms.filter(
    ([, a]) =>
      a.Namespace === 'AWS/Lambda' &&
      a.MetricName === metricName &&
      sameValue(dimensionsOf(a.Dimensions), [{ Name: 'FunctionName', Value: functionRef }]),
  );

describe('operations: a nested stack', () => {
  it('holds the alarms, the topic and the dashboard; the service stack and the route stacks hold none of them', () => {
    expect(nestedStackResource).toBeDefined();
    for (const type of ['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::Dashboard', 'AWS::SNS::Topic', 'AWS::KMS::Key']) {
      for (const t of templates.filter((x) => x.stack !== stack.operations)) {
        expect(
          Object.values(t.json.Resources).filter((r) => r.Type === type),
          `${type} in ${t.stack.node.id}`,
        ).toEqual([]);
      }
      expect(nestedOfType(type).length, type).toBeGreaterThan(0);
    }
  });

  it(`keeps the service stack and the nested one under ${MAX_RESOURCES_PER_TEMPLATE} resources`, () => {
    // The service stack held 497 with the operations inside, 478 without, 490 with the comparison and
    // JUnit routes, 528 with the review routes: the routes are in nested stacks now (docs/decisions.md,
    // Routes in nested stacks). Every template's count is checked in test/infra/stack.test.ts.
    expect(parentResources.length).toBeLessThan(MAX_RESOURCES_PER_TEMPLATE);
    expect(nestedResources.length).toBeLessThan(MAX_RESOURCES_PER_TEMPLATE);
  });

  it('takes each parent resource it names as one parameter, under CloudFormation’s 200', () => {
    const parameters = Object.keys(nested.Parameters ?? {});
    expect(parameters.length).toBeLessThan(MAX_PARAMETERS);
    expect(Object.keys(passed).sort()).toEqual([...parameters].sort());
    // One parameter per job, queue and the table: no parent value is passed twice.
    const values = Object.values(passed).map((v) => JSON.stringify(v));
    expect(new Set(values).size).toBe(values.length);
    // Each job is passed; no route, the authorizer or the reference is (they have no alarm of their own).
    for (const f of functions)
      if (f.handler.startsWith('jobs/')) expect(values, f.key).toContain(JSON.stringify(f.ref));
      else expect(values, f.key).not.toContain(JSON.stringify(f.ref));
  });
});

describe('operations: alarms', () => {
  const queues = ofType('AWS::SQS::Queue');
  // A work queue has a redrive policy; the queue it names is a DLQ.
  const workQueues = queues.filter(([, q]) => q.Properties.RedrivePolicy);
  const workQueueIds = workQueues.map(([id]) => id);
  const dlqOf = (q: Resource) => q.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
  const dlqIds = new Set(workQueues.map(([, q]) => dlqOf(q)));
  const queueAlarms = (queueId: string, metricName: string) =>
    alarms.filter(
      ([, a]) =>
        a.Namespace === 'AWS/SQS' &&
        a.MetricName === metricName &&
        sameValue(dimensionsOf(a.Dimensions), [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }]),
    );

  it('has five work queues and five DLQs, and every queue is one of them', () => {
    expect(workQueueIds).toHaveLength(5);
    expect(dlqIds.size).toBe(5);
    expect(queues.map(([id]) => id).sort()).toEqual([...workQueueIds, ...dlqIds].sort());
  });

  it('alarms on every DLQ’s first visible message', () => {
    for (const id of dlqIds) {
      const found = queueAlarms(id, 'ApproximateNumberOfMessagesVisible');
      expect(found, id).toHaveLength(1);
      expect(found[0]![1]).toMatchObject({
        Threshold: DLQ_MESSAGES_THRESHOLD,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Statistic: 'Maximum',
      });
    }
    expect(DLQ_MESSAGES_THRESHOLD).toBe(1);
  });

  it('alarms on every work queue’s oldest message over 15 minutes', () => {
    for (const id of workQueueIds) {
      const found = queueAlarms(id, 'ApproximateAgeOfOldestMessage');
      expect(found, id).toHaveLength(1);
      expect(found[0]![1]).toMatchObject({
        Threshold: QUEUE_AGE_THRESHOLD_SECONDS,
        ComparisonOperator: 'GreaterThanThreshold',
        Statistic: 'Maximum',
      });
    }
    expect(QUEUE_AGE_THRESHOLD_SECONDS).toBe(900);
  });

  it('has one Errors alarm per job, named after its handler, and none per route', () => {
    expect(functions).toHaveLength(routes.length + jobs.length + 2);
    // Every Lambda function of every template is one of them (CDK's console copier aside).
    const all = templates.flatMap((t) =>
      Object.entries(t.json.Resources)
        .filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && !id.startsWith('CustomCDKBucketDeployment'))
        .map(([id]) => `${t.stack.node.id}/${id}`),
    );
    expect(all.sort()).toEqual(functions.map((f) => f.key).sort());
    const jobFunctions = functions.filter((f) => f.handler.startsWith('jobs/'));
    expect(jobFunctions.map((f) => f.handler).sort()).toEqual(jobs.map((j) => j.handler).sort());
    for (const { key, ref, handler } of functions) {
      // A route stack's function is read from its output only when an alarm names it.
      if (!handler.startsWith('jobs/')) {
        expect(
          alarms.some(([, a]) => JSON.stringify(a).includes(handler)),
          key,
        ).toBe(false);
        continue;
      }
      expect(ref, key).toBeDefined();
      const errors = lambdaAlarmsNaming(ref, 'Errors');
      expect(errors, `Errors of ${key}`).toHaveLength(1);
      expect(errors[0]![1], `Errors of ${key}`).toMatchObject({
        AlarmName: alarmNameOf('OpsTest', functionAlarmName(handler, 'Errors')),
        Statistic: 'Sum',
        Period: 300,
        Threshold: FUNCTION_ALARM_THRESHOLD,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
      });
      expect(lambdaAlarmsNaming(ref, 'Throttles'), `Throttles of ${key}`).toHaveLength(0);
    }
    expect(FUNCTION_ALARM_THRESHOLD).toBeGreaterThanOrEqual(1);
  });

  it('alarms on Lambda throttles once, over the account’s functions, and on each job’s own errors', () => {
    const lambdaAlarms = alarms.filter(
      ([, a]) => a.Namespace === 'AWS/Lambda' || statsOf(a).some((s) => s.Metric.Namespace === 'AWS/Lambda'),
    );
    const jobCount = functions.filter((f) => f.handler.startsWith('jobs/')).length;
    expect(lambdaAlarms).toHaveLength(jobCount + 1);
    const throttles = lambdaAlarms.filter(([, a]) => a.MetricName === 'Throttles');
    expect(throttles).toHaveLength(1);
    expect(throttles[0]![1]).toMatchObject({
      AlarmName: alarmNameOf('OpsTest', 'LambdaThrottles'),
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(throttles[0]![1].Dimensions).toBeUndefined();
    for (const [id, a] of lambdaAlarms.filter(([, x]) => x.MetricName === 'Errors')) {
      expect(a.Metrics, id).toBeUndefined();
      expect(a.Dimensions, id).toHaveLength(1);
    }
  });

  it(`holds at most ${MAX_ALARMS} alarms, each with its runbook entry in docs/operations.md`, () => {
    expect(alarms.length).toBeLessThanOrEqual(MAX_ALARMS);
    expect(MAX_ALARMS).toBe(40);
    const runbook = readFileSync(join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8');
    for (const [, a] of alarms) {
      const name = String(a.AlarmName).slice('OpsTest-'.length);
      // A job's alarm is documented by its pattern, `<handler>-Errors`.
      const documented = name.endsWith('-Errors') ? '<handler>-Errors' : name;
      expect(runbook, name).toContain(`\`${documented}\``);
    }
  });

  it('gives every alarm its own readable name, after the service stack’s', () => {
    const names = alarms.map(([, a]) => a.AlarmName as string);
    expect(new Set(names).size).toBe(alarms.length);
    for (const name of names) expect(name).toMatch(/^OpsTest-[A-Za-z0-9/-]+$/);
  });

  it('keeps every metric-math alarm within CloudWatch’s 10 metrics per alarm, each used by its expression', () => {
    const mathAlarms = alarms.filter(([, a]) => a.Metrics);
    expect(mathAlarms.length).toBeGreaterThan(0);
    for (const [id, a] of mathAlarms) {
      const queries = a.Metrics as Query[];
      expect(statsOf(a).length, id).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
      expect(
        queries.filter((q) => q.ReturnData !== false),
        id,
      ).toHaveLength(1);
      const expression = watchedExpression(a)!;
      for (const q of queries.filter((x) => x.MetricStat)) expect(expression, id).toMatch(new RegExp(`\\b${q.Id}\\b`));
    }
  });

  it('sends every alarm to the alarm topic and treats missing data as not breaching', () => {
    expect(topicId).toHaveLength(1);
    expect(alarms.length).toBeGreaterThan(0);
    for (const [id, a] of alarms) {
      expect(a.AlarmActions, id).toEqual([refOf(topicId[0]!)]);
      expect(a.TreatMissingData, id).toBe('notBreaching');
    }
  });

  it('alarms on the API’s 5XX rate over 1% of its requests in 5 minutes', () => {
    const apiName = ofType('AWS::ApiGateway::RestApi')[0]![1].Properties.Name as string;
    const found = alarms.filter(([, a]) => statsOf(a).some((s) => s.Metric.MetricName === '5XXError'));
    expect(found).toHaveLength(1);
    const a = found[0]![1];
    expect(a).toMatchObject({
      Threshold: API_5XX_PERCENT_THRESHOLD,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
    expect(API_5XX_PERCENT_THRESHOLD).toBe(1);
    const byId = Object.fromEntries((a.Metrics as Query[]).map((q) => [q.Id, q]));
    const errors = byId.errors!.MetricStat!;
    const requests = byId.requests!.MetricStat!;
    expect(watchedExpression(a)).toBe('100 * errors / requests');
    for (const [stat, name] of [
      [errors, '5XXError'],
      [requests, 'Count'],
    ] as const) {
      expect(stat).toMatchObject({
        Period: 300,
        Stat: 'Sum',
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: name, Dimensions: [{ Name: 'ApiName', Value: apiName }] },
      });
    }
  });

  it('alarms on a stalled run: the service’s RunsStalled metric, from 1', () => {
    const found = alarms.filter(([, a]) => a.MetricName === METRIC.RunsStalled);
    expect(found).toHaveLength(1);
    expect(found[0]![1]).toMatchObject({
      AlarmName: alarmNameOf('OpsTest', 'RunsStalled'),
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: SERVICE_DIMENSION, Value: SERVICE_NAME }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('alarms on the API’s p99 latency over 3 s', () => {
    const found = alarms.filter(([, a]) => a.Namespace === 'AWS/ApiGateway' && a.MetricName === 'Latency');
    expect(found).toHaveLength(1);
    expect(found[0]![1]).toMatchObject({
      ExtendedStatistic: 'p99',
      Period: 300,
      Threshold: API_P99_LATENCY_THRESHOLD_MS,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(API_P99_LATENCY_THRESHOLD_MS).toBe(3000);
  });

  it('alarms on the table’s throttled requests and system errors, over every operation the code calls', () => {
    const tableId = ofType('AWS::DynamoDB::Table')[0]![0];
    for (const metricName of ['ThrottledRequests', 'SystemErrors']) {
      const found = alarms.filter(([, a]) => statsOf(a).some((s) => s.Metric.MetricName === metricName));
      expect(found, metricName).toHaveLength(1);
      const a = found[0]![1];
      expect(a).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      const operations = statsOf(a).map((s) => {
        expect(s.Metric).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metricName });
        expect(dimensionsOf(s.Metric.Dimensions)).toContainEqual({ Name: 'TableName', Value: refOf(tableId) });
        return s.Metric.Dimensions!.find((d) => d.Name === 'Operation')!.Value;
      });
      expect(operations.sort()).toEqual([...TABLE_OPERATIONS].sort());
    }
  });

  it('sums the operations of every DynamoDB command the code sends', () => {
    // The commands shared/db/*.ts imports from lib-dynamodb (the only module that talks to the table,
    // test/unit's architecture test), by the DynamoDB operation each sends.
    const operationOf: Record<string, Operation> = {
      GetCommand: Operation.GET_ITEM,
      PutCommand: Operation.PUT_ITEM,
      UpdateCommand: Operation.UPDATE_ITEM,
      DeleteCommand: Operation.DELETE_ITEM,
      QueryCommand: Operation.QUERY,
      ScanCommand: Operation.SCAN,
      BatchGetCommand: Operation.BATCH_GET_ITEM,
      BatchWriteCommand: Operation.BATCH_WRITE_ITEM,
      TransactGetCommand: Operation.TRANSACT_GET_ITEMS,
      TransactWriteCommand: Operation.TRANSACT_WRITE_ITEMS,
      ExecuteStatementCommand: Operation.EXECUTE_STATEMENT,
    };
    const dir = join(PROJECT_ROOT, 'shared', 'db');
    const commands = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(join(dir, file), 'utf8');
      const imports = source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*'@aws-sdk\/lib-dynamodb'/g);
      for (const [, typeOnly, names] of imports) {
        if (typeOnly) continue;
        for (const spec of names!.split(',').map((n) => n.trim())) {
          // `type X` and `X as Y` specifiers: only values that are commands count.
          const name = spec.startsWith('type ') ? undefined : spec.split(/\s+as\s+/)[0];
          if (name?.endsWith('Command')) commands.add(name);
        }
      }
    }
    expect(commands.size).toBeGreaterThan(5);
    for (const command of commands) expect(operationOf[command], `${command}: add its operation`).toBeDefined();
    const sent = new Set([...commands].map((c) => operationOf[c]!));
    expect([...sent].sort()).toEqual([...TABLE_OPERATIONS].sort());
  });
});

describe('operations: topic, dashboard, tracing, logs', () => {
  it('encrypts the topic with a rotated key CloudWatch may use, takes TLS only, lets our alarms publish', () => {
    const topic = nestedOfType('AWS::SNS::Topic')[0]!;
    const keyId = topic[1].Properties.KmsMasterKeyId['Fn::GetAtt'][0] as string;
    const key = nested.Resources[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
    const policy = nestedOfType('AWS::SNS::TopicPolicy').find(([, p]) =>
      sameValue(p.Properties.Topics, [refOf(topic[0])]),
    )!;
    const statements = policy[1].Properties.PolicyDocument.Statement as Record<string, any>[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Condition: expect.objectContaining({ StringEquals: { 'aws:SourceAccount': '123456789012' } }),
      }),
    );
  });

  it('outputs the topic’s ARN as AlarmTopicArn of the service stack (an output of the nested one)', () => {
    const value = parent.Outputs?.AlarmTopicArn?.Value as { 'Fn::GetAtt': [string, string] };
    expect(value['Fn::GetAtt'][0]).toBe(nestedStackResource[0]);
    const output = value['Fn::GetAtt'][1].replace(/^Outputs\./, '');
    expect(nested.Outputs?.[output]?.Value).toEqual(refOf(topicId[0]!));
  });

  it('has one dashboard graphing the API, the queues and the service’s own metrics', () => {
    const dashboards = nestedOfType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const props = dashboards[0]![1].Properties;
    expect(props.DashboardName).toBe(dashboardNameOf('OpsTest'));
    // The body is a Fn::Join of JSON text and tokens (region, queue names): its text parts suffice here.
    const parts = props.DashboardBody['Fn::Join'][1] as unknown[];
    const body = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('');
    for (const metricName of ['Count', '4XXError', '5XXError', 'Latency']) {
      expect(body).toContain(`"AWS/ApiGateway","${metricName}"`);
    }
    expect(body).toContain('"stat":"p50"');
    expect(body).toContain('"stat":"p99"');
    for (const metricName of ['ApproximateNumberOfMessagesVisible', 'ApproximateAgeOfOldestMessage']) {
      expect(body).toContain(`"AWS/SQS","${metricName}"`);
    }
    const graphed = [
      METRIC.RunSessionsCompleted,
      METRIC.RunSessionsFailed,
      METRIC.EvaluationsSucceeded,
      METRIC.EvaluationsFailed,
      METRIC.AgentCallLatency,
      METRIC.LlmCallLatency,
      METRIC.CreditsCharged,
    ];
    for (const metricName of graphed) {
      expect(body).toContain(`"${METRICS_NAMESPACE}","${metricName}","${SERVICE_DIMENSION}","${SERVICE_NAME}"`);
    }
    expect(body).toContain(METRIC.AgentCallErrors);
    expect(body).toContain('"type":"alarm"');
  });

  it('shows every alarm in one alarm status widget, none holding more than CloudWatch’s 100', () => {
    const props = nestedOfType('AWS::CloudWatch::Dashboard')[0]![1].Properties;
    // An alarm's ARN token becomes `arn:<alarm id>` (inside a JSON string), any other token `token`.
    const parts = props.DashboardBody['Fn::Join'][1] as unknown[];
    const text = parts
      .map((p) => {
        if (typeof p === 'string') return p;
        const [id, attribute] = (p as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
        return attribute === 'Arn' ? `arn:${id}` : 'token';
      })
      .join('');
    type Widget = { type: string; properties: { title: string; alarms?: string[]; states?: string[] } };
    const widgets = (JSON.parse(text) as { widgets: Widget[] }).widgets.filter((w) => w.type === 'alarm');
    expect(MAX_ALARMS_PER_STATUS_WIDGET).toBe(100);
    for (const w of widgets) expect(w.properties.alarms!.length, w.properties.title).toBeLessThanOrEqual(100);
    const shown = widgets.flatMap((w) => w.properties.alarms!);
    expect([...shown].sort()).toEqual(alarms.map(([id]) => `arn:${id}`).sort());
    // The service's own alarms in one widget, whatever their state; the functions' when in ALARM.
    const [service, ...functionWidgets] = widgets;
    expect(service!.properties.states).toBeUndefined();
    expect(service!.properties.alarms).toHaveLength(
      alarms.length - functions.filter((f) => f.handler.startsWith('jobs/')).length,
    );
    for (const w of functionWidgets) expect(w.properties.states, w.properties.title).toEqual(['ALARM']);
  });

  it('traces the API stage and every function with X-Ray', () => {
    const stages = ofType('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    expect(stages[0]![1].Properties.TracingEnabled).toBe(true);
    for (const { key, resource: f } of functions) expect(f.Properties.TracingConfig, key).toEqual({ Mode: 'Active' });
  });

  it('makes every function log JSON at LOG_LEVEL, with the Powertools service name and metrics namespace', () => {
    for (const { key: id, resource: f } of functions) {
      expect(f.Properties.LoggingConfig, id).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: DEFAULT_LOG_LEVEL,
      });
      expect(f.Properties.Environment.Variables, id).toMatchObject({
        [ENV.logLevel]: DEFAULT_LOG_LEVEL,
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      });
    }
  });
});

describe('log level of a deployment', () => {
  /** One function in a small stack of its own, with the given context. */
  function oneFunction(context: Record<string, unknown>) {
    const small = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
    const s = new Stack(small, 'LogLevel', { env: { account: '123456789012', region: 'eu-west-1' } });
    const logGroup = new LogGroup(s, 'Logs');
    const role = new Role(s, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    new AppFunction(s, 'Fn', { handler: 'build-info/get', role, logGroup, environment: {} });
    const [fn] = Object.values(Template.fromStack(s).findResources('AWS::Lambda::Function')) as Resource[];
    return fn!.Properties;
  }

  it('is INFO, or the `logLevel` context value (any case), for Lambda’s filter and LOG_LEVEL alike', () => {
    expect(DEFAULT_LOG_LEVEL).toBe('INFO');
    const debug = oneFunction({ [LOG_LEVEL_CONTEXT]: 'debug' });
    expect(debug.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG' });
    expect(debug.Environment.Variables[ENV.logLevel]).toBe('DEBUG');
    expect(oneFunction({}).Environment.Variables[ENV.logLevel]).toBe('INFO');
  });

  it('refuses a level Lambda or Powertools would not know', () => {
    expect(() => oneFunction({ [LOG_LEVEL_CONTEXT]: 'verbose' })).toThrow(
      /logLevel=verbose is not one of TRACE, DEBUG, INFO, WARN, ERROR/,
    );
  });
});
