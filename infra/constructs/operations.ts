import { ArnFormat, Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmState,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type GraphWidgetProps,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_DIMENSION,
  SERVICE_NAME,
  STATUS_CLASS_DIMENSION,
} from '../../shared/observability/metric-names.js';

/** Every alarm and graph looks at 5-minute periods. */
const PERIOD = Duration.minutes(5);

/** A DLQ alarms on its first message. */
export const DLQ_MESSAGES_THRESHOLD = 1;
/** A work queue alarms when its oldest message has waited longer than this (15 minutes). */
export const QUEUE_AGE_THRESHOLD_SECONDS = 15 * 60;
/** The API alarms when more than this percentage of its requests in 5 minutes answered 5XX. */
export const API_5XX_PERCENT_THRESHOLD = 1;
/** The API alarms when its p99 latency is over this (ms). */
export const API_P99_LATENCY_THRESHOLD_MS = 3000;
/** A function alarms on its first error, and on its first throttled invocation, in 5 minutes. */
export const FUNCTION_ALARM_THRESHOLD = 1;
/** CloudWatch's hard limit of metrics in one metric-math alarm (docs/decisions.md, Alarms). */
export const MAX_METRICS_PER_ALARM = 10;
/** The most alarms one alarm status widget of a dashboard shows (CloudWatch's limit). */
export const MAX_ALARMS_PER_STATUS_WIDGET = 100;

/**
 * The DynamoDB operations the service calls: those of the lib-dynamodb commands that shared/db/*.ts
 * sends (GetCommand is GetItem, QueryCommand Query, ExecuteStatementCommand ExecuteStatement, the
 * PartiQL SELECT, …). The table's throttle and system-error alarms sum their metrics, which DynamoDB
 * publishes per operation; test/infra/operations.test.ts keeps this list equal to the imports.
 */
export const TABLE_OPERATIONS: readonly Operation[] = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
  Operation.BATCH_GET_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.EXECUTE_STATEMENT,
];

/** A work queue and its dead-letter queue. */
export interface WorkQueue {
  /** Short name in alarm ids and graph labels, e.g. `Run`. */
  name: string;
  queue: IQueue;
  dlq: IQueue;
}

/** A function of the service, by its module under `functions/` (an AppFunction is one). */
export interface WatchedFunction {
  readonly handler: string;
  readonly fn: IFunction;
}

export interface OperationsProps {
  queues: readonly WorkQueue[];
  /**
   * The jobs (queue-fed and scheduled functions, and the call-control function): one Errors alarm
   * each, since a job's failure reaches no caller. Routes are watched through the API's 5XX rate and
   * latency, throttles through one alarm over the account's functions.
   */
  functions: readonly WatchedFunction[];
  api: RestApi;
  table: ITable;
}

/** The dashboard's name in a stack: the stack name with `-operations`. */
export const dashboardNameOf = (stackName: string) => `${stackName}-operations`;

/** An alarm's name: the service stack's name, then the alarm's own (e.g. `EvalPlatform-RunDlqMessages`). */
export const alarmNameOf = (stackName: string, name: string) => `${stackName}-${name}`;

/** The name of a job's alarm: its handler and the metric, e.g. `jobs/runner-Errors`. */
export const functionAlarmName = (handler: string, metricName: 'Errors') => `${handler}-${metricName}`;

/** The most alarms the stack may hold: a platform team reads every one (and each costs). */
export const MAX_ALARMS = 40;

/** A construct id from a handler: `api-keys/create` is `ApiKeysCreate`. */
const idOf = (handler: string) =>
  handler
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/**
 * Alarms, their SNS topic and the operations dashboard (docs/operations.md says what each alarm
 * means and what to do), in a nested stack of the service's stack: at most MAX_ALARMS alarms, the
 * queues', the API's, the table's, one per job and one for the account's throttles
 * (docs/decisions.md, Alarms). Each parent resource this stack names (a job, a queue, the table) is
 * one parameter of its template.
 */
export class Operations extends NestedStack {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm, function alarms included. */
  readonly alarms: Alarm[] = [];
  /** The Errors alarms of the jobs, in handler order. */
  readonly functionAlarms: Alarm[] = [];
  private readonly action: SnsAction;
  /** The service stack: it names the dashboard, the alarms and the topic (this one's name is generated). */
  private readonly parentName: string;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id, {
      description: `${Stack.of(scope).stackName} operations: alarms, their SNS topic, the dashboard`,
    });
    this.parentName = this.nestedStackParent!.stackName;

    // SSE with a key of our own: CloudWatch cannot use the AWS managed SNS key (its policy is
    // fixed), and cdk-nag (SNS2) asks for a KMS key. The key guards nothing kept, so it may go.
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the alarm topic; CloudWatch alarms publish to it',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    // The key policy AWS documents for CloudWatch publishing to an encrypted topic.
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${this.parentName} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // The topic policy (made for enforceSSL) replaces SNS's default one, so CloudWatch, a service
    // principal, needs its own grant: for this account's alarms only.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarms',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': this.account },
          ArnLike: {
            'aws:SourceArn': this.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    this.action = new SnsAction(this.topic);

    // ---------- queues ----------
    for (const { name, queue, dlq } of props.queues) {
      this.alarm(`${name}DlqMessages`, {
        metric: dlq.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
        threshold: DLQ_MESSAGES_THRESHOLD,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description: `${name} DLQ holds a message: a job failed on every receive.`,
      });
      this.alarm(`${name}QueueAge`, {
        metric: queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: PERIOD }),
        threshold: QUEUE_AGE_THRESHOLD_SECONDS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `${name} queue's oldest message waited over 15 minutes: its consumer fails or falls behind.`,
      });
    }

    // ---------- jobs ----------
    // Each job by name: its failure reaches no caller (a route's is a 5XX of the API, below), and
    // an alarm that names the function says where to look. In handler order, so the dashboard's
    // widget keeps a stable order. Code-point order, not the locale's: the template must not
    // depend on the synthesizing machine.
    const functions = [...props.functions].sort((a, b) => (a.handler < b.handler ? -1 : a.handler > b.handler ? 1 : 0));
    for (const { handler, fn } of functions) {
      const alarm = this.alarm(`${idOf(handler)}Errors`, {
        name: functionAlarmName(handler, 'Errors'),
        metric: fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
        threshold: FUNCTION_ALARM_THRESHOLD,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        description: `Function ${handler} failed (Errors >= ${FUNCTION_ALARM_THRESHOLD} in 5 minutes).`,
      });
      this.functionAlarms.push(alarm);
    }
    // One alarm for throttles over every function of the account and region: concurrency is the
    // account's, so throttles come together, and one page says so.
    this.alarm('LambdaThrottles', {
      metric: LambdaFunction.metricAllThrottles({ statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description: 'An invocation of a Lambda function of the account was throttled (Throttles >= 1 in 5 minutes).',
    });

    // ---------- runs and generations ----------
    this.alarm('RunsStalled', {
      // The service's own metric, without a label (a labelled metric becomes a metric-math query);
      // under `service` alone it counts stalled runs and stalled generations (`kind` tells them apart).
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRIC.RunsStalled,
        dimensionsMap: { [SERVICE_DIMENSION]: SERVICE_NAME },
        statistic: 'Sum',
        period: PERIOD,
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description:
        'A run or a test generation made no progress for STALL_MINUTES: the watchdog sent its jobs again or failed what was left.',
    });

    // ---------- API ----------
    const { api } = props;
    const api5xxRate = new MathExpression({
      expression: '100 * errors / requests',
      usingMetrics: {
        errors: api.metricServerError({ statistic: 'Sum', period: PERIOD }),
        requests: api.metricCount({ statistic: 'Sum', period: PERIOD }),
      },
      label: '5XX (% of requests)',
      period: PERIOD,
    });
    this.alarm('Api5xxRate', {
      metric: api5xxRate,
      threshold: API_5XX_PERCENT_THRESHOLD,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: 'Over 1% of API requests in 5 minutes answered 5XX.',
    });
    this.alarm('ApiP99Latency', {
      metric: api.metricLatency({ statistic: 'p99', period: PERIOD }),
      threshold: API_P99_LATENCY_THRESHOLD_MS,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // Two 5-minute periods of three, so one cold start in a quiet period does not page.
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: 'API p99 latency over 3 s in 2 of the last 3 5-minute periods.',
    });

    // ---------- table ----------
    const { table } = props;
    const perOperation = (metricName: string) => (op: Operation) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: table.tableName, Operation: op },
        statistic: 'Sum',
        period: PERIOD,
      });
    const operations = TABLE_OPERATIONS.map((op) => [op, op] as const);
    this.alarm('TableThrottledRequests', {
      metric: sumOf('Throttled requests', 'throttled', operations, perOperation('ThrottledRequests')),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description: 'DynamoDB throttled requests to the table.',
    });
    this.alarm('TableSystemErrors', {
      metric: sumOf('System errors', 'system', operations, perOperation('SystemErrors')),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description: 'DynamoDB answered requests to the table with a system error (HTTP 500).',
    });

    // ---------- dashboard ----------
    const serviceAlarms = this.alarms.filter((a) => !this.functionAlarms.includes(a));
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: dashboardNameOf(this.parentName),
      defaultInterval: Duration.hours(6),
    });
    const graph = (title: string, left: IMetric[], more: Partial<GraphWidgetProps> = {}) =>
      new GraphWidget({ title, left, width: 8, height: 6, period: PERIOD, ...more });
    const queueMetric = (name: string, metric: Metric) => metric.with({ label: name, period: PERIOD });
    this.dashboard.addWidgets(
      graph('API requests, 4XX, 5XX', [
        api.metricCount({ statistic: 'Sum', label: 'requests' }),
        api.metricClientError({ statistic: 'Sum', label: '4XX' }),
        api.metricServerError({ statistic: 'Sum', label: '5XX' }),
      ]),
      graph(
        'API latency (ms)',
        [api.metricLatency({ statistic: 'p50', label: 'p50' }), api.metricLatency({ statistic: 'p99', label: 'p99' })],
        { leftAnnotations: [{ value: API_P99_LATENCY_THRESHOLD_MS, label: 'p99 alarm' }] },
      ),
      graph('API 5XX (% of requests)', [api5xxRate], {
        leftAnnotations: [{ value: API_5XX_PERCENT_THRESHOLD, label: 'alarm' }],
      }),
    );
    this.dashboard.addWidgets(
      graph(
        'Queue depth (visible messages)',
        props.queues.map(({ name, queue }) =>
          queueMetric(name, queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })),
        ),
      ),
      graph(
        'DLQ depth (visible messages)',
        props.queues.map(({ name, dlq }) =>
          queueMetric(`${name} DLQ`, dlq.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })),
        ),
      ),
      graph(
        'Age of oldest message (s)',
        props.queues.map(({ name, queue }) =>
          queueMetric(name, queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' })),
        ),
        {
          leftAnnotations: [{ value: QUEUE_AGE_THRESHOLD_SECONDS, label: 'alarm' }],
        },
      ),
    );
    this.dashboard.addWidgets(
      graph('Run sessions', [
        appMetric(METRIC.RunSessionsCompleted, 'Sum', 'completed'),
        appMetric(METRIC.RunSessionsFailed, 'Sum', 'failed'),
      ]),
      graph('Evaluations', [
        appMetric(METRIC.EvaluationsSucceeded, 'Sum', 'succeeded'),
        appMetric(METRIC.EvaluationsFailed, 'Sum', 'failed'),
      ]),
      graph('Credits charged', [appMetric(METRIC.CreditsCharged, 'Sum', 'credits')]),
    );
    this.dashboard.addWidgets(
      graph('Agent call latency (ms)', [
        appMetric(METRIC.AgentCallLatency, 'p50', 'p50'),
        appMetric(METRIC.AgentCallLatency, 'p99', 'p99'),
      ]),
      graph('LLM call latency (ms)', [
        appMetric(METRIC.LlmCallLatency, 'p50', 'p50'),
        appMetric(METRIC.LlmCallLatency, 'p99', 'p99'),
      ]),
      graph('Agent and LLM call errors', [
        // AgentCallErrors carries statusClass too: one line per class, whichever classes exist.
        new MathExpression({
          expression:
            `SEARCH('{${METRICS_NAMESPACE},${SERVICE_DIMENSION},${STATUS_CLASS_DIMENSION}} ` +
            `MetricName="${METRIC.AgentCallErrors}" ${SERVICE_DIMENSION}="${SERVICE_NAME}"', ` +
            `'Sum', ${PERIOD.toSeconds()})`,
          usingMetrics: {},
          // A dynamic label: CloudWatch puts each series' statusClass in it.
          label: `agent \${PROP('Dim.${STATUS_CLASS_DIMENSION}')}`,
          period: PERIOD,
        }),
        appMetric(METRIC.LlmCallErrors, 'Sum', 'LLM'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Webhook deliveries and given-up jobs', [
        appMetric(METRIC.WebhookDeliveriesSucceeded, 'Sum', 'delivered'),
        appMetric(METRIC.WebhookDeliveriesFailed, 'Sum', 'delivery failed'),
        appMetric(METRIC.JobsGivenUp, 'Sum', 'jobs given up'),
      ]),
      graph('OTLP spans', [
        appMetric(METRIC.OtlpSpansAccepted, 'Sum', 'accepted'),
        appMetric(METRIC.OtlpSpansRejected, 'Sum', 'rejected'),
      ]),
      graph('Lambda errors and throttles (all functions of the account)', [
        LambdaFunction.metricAllErrors({ statistic: 'Sum', label: 'errors' }),
        LambdaFunction.metricAllThrottles({ statistic: 'Sum', label: 'throttles' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Table throttled requests and system errors', [
        sumOf('throttled', 'throttled', operations, perOperation('ThrottledRequests')),
        sumOf('system errors', 'system', operations, perOperation('SystemErrors')),
      ]),
      new AlarmStatusWidget({ title: 'Alarms: queues, API, table', alarms: serviceAlarms, width: 16, height: 6 }),
    );
    // The jobs' alarms that are in ALARM now.
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Jobs in ALARM',
        alarms: this.functionAlarms,
        states: [AlarmState.ALARM],
        width: 8,
        height: 4,
      }),
    );
    if (this.alarms.length > MAX_ALARMS) throw new Error(`${this.alarms.length} alarms, over ${MAX_ALARMS}`);
  }

  private alarm(id: string, props: AlarmSpec): Alarm {
    const alarm = new Alarm(this, id, {
      // Named, not generated: the name says which stack and which function or queue, where the
      // nested stack's generated one would be `<stack>-OperationsNestedStack…-<id>-<hash>`.
      alarmName: alarmNameOf(this.parentName, props.name ?? id),
      metric: props.metric,
      threshold: props.threshold,
      comparisonOperator: props.comparisonOperator,
      evaluationPeriods: props.evaluationPeriods ?? 1,
      ...(props.datapointsToAlarm ? { datapointsToAlarm: props.datapointsToAlarm } : {}),
      // No data is no traffic or an idle queue, not a failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${props.description} What to do: docs/operations.md.`,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }
}

interface AlarmSpec {
  /** The alarm's name after the stack's; its construct id when not given. */
  name?: string;
  metric: IMetric;
  threshold: number;
  comparisonOperator: ComparisonOperator;
  /** What fired, for the notification; the alarm's description adds where to read what to do. */
  description: string;
  evaluationPeriods?: number;
  datapointsToAlarm?: number;
}

/** A custom metric of the service (Powertools Metrics EMF: namespace and `service` dimension). */
function appMetric(metricName: string, statistic: string, label: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { [SERVICE_DIMENSION]: SERVICE_NAME },
    statistic,
    label,
    period: PERIOD,
  });
}

/**
 * The sum of a few metrics (at most MAX_METRICS_PER_ALARM, CloudWatch's limit per alarm), each
 * FILLed with 0: errors and throttles are sparse (a function or operation that had none in a period
 * may have no data point), and the sum must still have a value when only some of them have one.
 */
function sumOf<T>(
  label: string,
  idPrefix: string,
  items: readonly (readonly [string, T])[],
  metricOf: (item: T) => IMetric,
): MathExpression {
  if (items.length > MAX_METRICS_PER_ALARM) {
    throw new Error(`${label}: ${items.length} metrics, over ${MAX_METRICS_PER_ALARM}`);
  }
  const usingMetrics: Record<string, IMetric> = {};
  // Ids are unique in one graph or alarm, so each sum has its own prefix.
  for (const [name, item] of items) usingMetrics[`${idPrefix}_${name.replace(/[^A-Za-z0-9_]/g, '_')}`] = metricOf(item);
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    label,
    period: PERIOD,
  });
}
