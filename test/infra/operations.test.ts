import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { EvalPlatformStack } from '../../infra/stack.js';
import { jobs, routes } from '../../shared/routes.js';
import { AppFunction, DEFAULT_LOG_LEVEL, LOG_LEVEL_CONTEXT } from '../../infra/constructs/app-function.js';
import {
  API_5XX_PERCENT_THRESHOLD,
  API_P99_LATENCY_THRESHOLD_MS,
  DLQ_MESSAGES_THRESHOLD,
  MAX_METRICS_PER_ALARM,
  QUEUE_AGE_THRESHOLD_SECONDS,
  TABLE_OPERATIONS,
  dashboardNameOf,
} from '../../infra/constructs/operations.js';
import { ENV } from '../../shared/config/env.js';
import { METRIC, METRICS_NAMESPACE, SERVICE_DIMENSION, SERVICE_NAME } from '../../shared/observability/metric-names.js';

type Resource = { Type: string; Properties: Record<string, any> };
type Dimension = { Name: string; Value: unknown };
type MetricStat = {
  Metric: { Namespace: string; MetricName: string; Dimensions?: Dimension[] };
  Period: number;
  Stat: string;
};
type Query = { Id: string; Expression?: string; MetricStat?: MetricStat; ReturnData?: boolean };

// No bundling, no CloudFormation validator (as test/infra/stack.test.ts); cdk-nag is checked there.
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new EvalPlatformStack(app, 'OpsTest', { env: { account: '123456789012', region: 'eu-west-1' } });
const json = Template.fromStack(stack).toJSON() as {
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown }>;
};
const resources = Object.entries(json.Resources);
const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
const alarms = ofType('AWS::CloudWatch::Alarm').map(([id, r]) => [id, r.Properties] as const);
const topicId = ofType('AWS::SNS::Topic').map(([id]) => id);

/** The functions of the service: all but CDK's own BucketDeployment handler (it copies the console). */
const functions = ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'));
const refOf = (id: string) => ({ Ref: id });
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The metric-math queries of an alarm that fetch a metric. */
const statsOf = (alarm: Record<string, any>): MetricStat[] =>
  ((alarm.Metrics ?? []) as Query[]).flatMap((q) => (q.MetricStat ? [q.MetricStat] : []));
/** The expression an alarm watches (its one query with ReturnData not false). */
const watchedExpression = (alarm: Record<string, any>): string | undefined =>
  ((alarm.Metrics ?? []) as Query[]).find((q) => q.Expression !== undefined && q.ReturnData !== false)?.Expression;

/** Alarms on an AWS/Lambda metric that name a function: directly, or as a metric of their expression. */
function lambdaAlarmsNaming(functionId: string, metricName: string) {
  return alarms.filter(([, a]) => {
    const names = (dims: Dimension[] | undefined) =>
      (dims ?? []).some((d) => d.Name === 'FunctionName' && sameValue(d.Value, refOf(functionId)));
    if (a.Namespace === 'AWS/Lambda' && a.MetricName === metricName && names(a.Dimensions)) return true;
    const queries = (a.Metrics ?? []) as Query[];
    const query = queries.find((q) => {
      const metric = q.MetricStat?.Metric;
      return metric?.Namespace === 'AWS/Lambda' && metric.MetricName === metricName && names(metric.Dimensions);
    });
    // The watched expression must use the metric, not only fetch it.
    return query !== undefined && new RegExp(`\\b${query.Id}\\b`).test(watchedExpression(a) ?? '');
  });
}

/** The alarm on a metric of all functions of the account (AWS/Lambda, no dimension). */
const accountWideAlarm = (metricName: string) =>
  alarms.find(([, a]) => a.Namespace === 'AWS/Lambda' && a.MetricName === metricName && !a.Dimensions?.length);

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
        sameValue(a.Dimensions, [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }]),
    );

  it('has four work queues and four DLQs, and every queue is one of them', () => {
    expect(workQueueIds).toHaveLength(4);
    expect(dlqIds.size).toBe(4);
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

  it('covers every function by an Errors and a Throttles alarm', () => {
    expect(functions).toHaveLength(routes.length + jobs.length + 2);
    for (const metricName of ['Errors', 'Throttles']) {
      // Every function of the account and region, so this stack's too (docs/decisions.md, Alarms).
      const accountWide = accountWideAlarm(metricName);
      expect(accountWide, metricName).toBeDefined();
      expect(accountWide![1]).toMatchObject({
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      // Covered: named by an alarm, or within the account-wide one.
      for (const [id] of functions) {
        expect(lambdaAlarmsNaming(id, metricName).length > 0 || accountWide !== undefined, id).toBe(true);
      }
    }
  });

  it('names every job function (queue consumer or schedule) in its own Errors and Throttles alarms', () => {
    const consumers = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties.FunctionName.Ref as string);
    const scheduled = ofType('AWS::Events::Rule').flatMap(([, r]) =>
      (r.Properties.Targets as { Arn: { 'Fn::GetAtt': [string, string] } }[]).map((t) => t.Arn['Fn::GetAtt'][0]),
    );
    const jobFunctions = new Set([...consumers, ...scheduled]);
    expect(jobFunctions.size).toBe(jobs.length);
    for (const id of jobFunctions) {
      for (const metricName of ['Errors', 'Throttles']) {
        const found = lambdaAlarmsNaming(id, metricName);
        expect(found, `${metricName} of ${id}`).toHaveLength(1);
        expect(found[0]![1]).toMatchObject({
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          EvaluationPeriods: 1,
        });
      }
    }
  });

  it('keeps every metric-math alarm within CloudWatch’s 10 metrics per alarm, each used by its expression', () => {
    const mathAlarms = alarms.filter(([, a]) => a.Metrics);
    expect(mathAlarms.length).toBeGreaterThan(0);
    for (const [id, a] of mathAlarms) {
      const queries = a.Metrics as Query[];
      expect(statsOf(a).length, id).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
      expect(queries.filter((q) => q.ReturnData !== false), id).toHaveLength(1);
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
    for (const [stat, name] of [[errors, '5XXError'], [requests, 'Count']] as const) {
      expect(stat).toMatchObject({
        Period: 300,
        Stat: 'Sum',
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: name, Dimensions: [{ Name: 'ApiName', Value: apiName }] },
      });
    }
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
        expect(s.Metric.Dimensions).toContainEqual({ Name: 'TableName', Value: refOf(tableId) });
        return s.Metric.Dimensions!.find((d) => d.Name === 'Operation')!.Value;
      });
      expect(operations.sort()).toEqual([...TABLE_OPERATIONS].sort());
    }
  });

  it('sums the operations of every DynamoDB command the code sends', () => {
    // The lib-dynamodb commands the repositories import, by the operation each sends.
    const OPERATION: Record<string, string> = {
      GetCommand: 'GetItem',
      PutCommand: 'PutItem',
      UpdateCommand: 'UpdateItem',
      DeleteCommand: 'DeleteItem',
      QueryCommand: 'Query',
      BatchGetCommand: 'BatchGetItem',
      BatchWriteCommand: 'BatchWriteItem',
      TransactWriteCommand: 'TransactWriteItems',
      ExecuteStatementCommand: 'ExecuteStatement',
    };
    const dir = join(import.meta.dirname, '..', '..', 'shared', 'db');
    const commands = new Set(
      readdirSync(dir)
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/lib-dynamodb'/g)])
        .flatMap((m) => m[1]!.split(',').map((s) => s.trim().replace(/^type\s+/, '')))
        .filter((name) => name.endsWith('Command')),
    );
    for (const c of commands) expect(OPERATION[c], `${c} has no operation here`).toBeDefined();
    expect([...commands].map((c) => OPERATION[c]).sort()).toEqual([...TABLE_OPERATIONS].sort());
  });
});

describe('operations: topic, dashboard, tracing, logs', () => {
  it('encrypts the topic with a rotated key CloudWatch may use, takes TLS only, lets our alarms publish', () => {
    const topic = ofType('AWS::SNS::Topic')[0]!;
    const keyId = topic[1].Properties.KmsMasterKeyId['Fn::GetAtt'][0] as string;
    const key = json.Resources[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
    const policy = ofType('AWS::SNS::TopicPolicy').find(([, p]) => sameValue(p.Properties.Topics, [refOf(topic[0])]))!;
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

  it('outputs the topic’s ARN as AlarmTopicArn', () => {
    expect(json.Outputs.AlarmTopicArn?.Value).toEqual(refOf(topicId[0]!));
  });

  it('has one dashboard graphing the API, the queues and the service’s own metrics', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
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

  it('traces the API stage and every function with X-Ray', () => {
    const stages = ofType('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    expect(stages[0]![1].Properties.TracingEnabled).toBe(true);
    for (const [id, f] of functions) expect(f.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
  });

  it('makes every function log JSON at LOG_LEVEL, with the Powertools service name and metrics namespace', () => {
    for (const [id, f] of functions) {
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
