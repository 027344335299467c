import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logger, serviceName } from './logger.js';
import { onEveryInvocation } from './per-invocation.js';
import { METRIC, METRICS_NAMESPACE, STALLED_KIND_DIMENSION, type MetricName } from './metric-names.js';

/**
 * The one metrics object of a function (Powertools for AWS Lambda, CloudWatch embedded metric
 * format): values are kept during an invocation and flushed once at its end as one JSON line
 * (`logMetrics`, added to every invocation by this module: a function whose code counts no metric
 * does not carry it, ./per-invocation.ts). Every metric has the dimension
 * `service` (eval-platform); AgentCallErrors also comes per `statusClass`.
 */

// Names shared with infra/ (the dashboard graphs them): one spelling in metric-names.ts.
export { METRIC, type MetricName } from './metric-names.js';
export const NAMESPACE = METRICS_NAMESPACE;

/** What went wrong in an agent attempt: the answer's class, or why there was none. */
export const AGENT_STATUS_CLASSES = [
  '3xx',
  '4xx',
  '5xx',
  'timeout',
  'network',
  /** The address guard refused the host. */
  'blocked',
  'too_large',
  /** A 2xx answer the output mapping cannot read. */
  'invalid_answer',
] as const;
export type AgentStatusClass = (typeof AGENT_STATUS_CLASSES)[number];

/** The class of an HTTP status: `4xx` for 404. */
export const statusClassOf = (status: number): '3xx' | '4xx' | '5xx' =>
  status >= 500 ? '5xx' : status >= 400 ? '4xx' : '3xx';

// Outside Lambda (npm start, tests) a metric line is a log line like the others: it is printed
// while the log shows INFO lines, so LOG_LEVEL=warn or error keeps a terminal or a test run quiet.
// POWERTOOLS_METRICS_DISABLED, when set, decides either way. Powertools reads it from the
// environment only, and again for every single-metric instance, hence the variable.
const inLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
if (!inLambda && process.env.POWERTOOLS_METRICS_DISABLED === undefined && logger.level > LogLevelThreshold.INFO) {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
}

const NOTHING_TO_FLUSH = /^No application metrics to publish/;

/** Powertools' own notices go through the logger; a flush with nothing to flush is usual, not a warning. */
const notices = {
  debug: (message: string) => logger.debug(message),
  info: (message: string) => logger.info(message),
  warn: (message: string) => (NOTHING_TO_FLUSH.test(message) ? logger.debug(message) : logger.warn(message)),
  error: (message: string) => logger.error(message),
};

export const metrics = new Metrics({ namespace: NAMESPACE, serviceName: serviceName(), logger: notices });
onEveryInvocation(logMetrics(metrics) as Parameters<typeof onEveryInvocation>[0]);

/** Adds `value` (default 1) to a count metric; nothing for 0 or a value that is not a finite number. */
export function countMetric(name: MetricName, value = 1): void {
  if (Number.isFinite(value) && value > 0) metrics.addMetric(name, MetricUnit.Count, value);
}

/** Records one duration in milliseconds. */
export function recordLatency(name: typeof METRIC.AgentCallLatency | typeof METRIC.LlmCallLatency, ms: number) {
  if (Number.isFinite(ms) && ms >= 0) metrics.addMetric(name, MetricUnit.Milliseconds, ms);
}

/**
 * Work the stall watchdog acted on (re-sent its jobs, or failed what was left): `RunsStalled`, on its
 * own EMF line, counted under `service` with `kind` (`run`, or `test` for a test's generation) and
 * under `service` alone, which the alarm watches.
 */
export function countStalled(kind: 'run' | 'test'): void {
  const single = metrics.singleMetric();
  single.addDimension(STALLED_KIND_DIMENSION, kind);
  single.addDimensions({});
  single.addMetric(METRIC.RunsStalled, MetricUnit.Count, 1);
}

/**
 * One failed agent attempt: its own EMF line (a dimension applies to a whole line), counted under
 * `service` with `statusClass` and under `service` alone, so an alarm can watch the total.
 */
export function countAgentCallError(statusClass: AgentStatusClass): void {
  const single = metrics.singleMetric();
  single.addDimension('statusClass', statusClass);
  single.addDimensions({});
  single.addMetric(METRIC.AgentCallErrors, MetricUnit.Count, 1);
}
