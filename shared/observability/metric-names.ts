/**
 * Names of the service's custom CloudWatch metrics, shared by the functions (which emit them as
 * Powertools Metrics EMF) and `infra/` (whose dashboard graphs them): one spelling, so a renamed
 * metric cannot leave a dashboard widget graphing nothing.
 */

/** CloudWatch namespace of every custom metric (POWERTOOLS_METRICS_NAMESPACE of every function). */
export const METRICS_NAMESPACE = 'EvalPlatform';

/** Service name (POWERTOOLS_SERVICE_NAME of every function); Powertools Metrics puts it in `service`. */
export const SERVICE_NAME = 'eval-platform';

/** The dimension Powertools Metrics adds to every metric, valued SERVICE_NAME. */
export const SERVICE_DIMENSION = 'service';

/** The second dimension of AgentCallErrors: the class of the failed call's outcome (its values are the emitter's). */
export const STATUS_CLASS_DIMENSION = 'statusClass';

/** The second dimension of RunsStalled: what stalled, `run` or `test` (a test's generation). */
export const STALLED_KIND_DIMENSION = 'kind';

/** The custom metrics, by what they count; units in the comments. */
export const METRIC = {
  /** One agent call's duration (Milliseconds). */
  AgentCallLatency: 'AgentCallLatency',
  /** Agent calls that failed (Count), with the `statusClass` dimension too. */
  AgentCallErrors: 'AgentCallErrors',
  /** One LLM call's duration (Milliseconds). */
  LlmCallLatency: 'LlmCallLatency',
  /** LLM calls that failed (Count). */
  LlmCallErrors: 'LlmCallErrors',
  /** Credits charged (Count). */
  CreditsCharged: 'CreditsCharged',
  RunSessionsCompleted: 'RunSessionsCompleted',
  RunSessionsFailed: 'RunSessionsFailed',
  EvaluationsSucceeded: 'EvaluationsSucceeded',
  EvaluationsFailed: 'EvaluationsFailed',
  OtlpSpansAccepted: 'OtlpSpansAccepted',
  OtlpSpansRejected: 'OtlpSpansRejected',
  WebhookDeliveriesSucceeded: 'WebhookDeliveriesSucceeded',
  WebhookDeliveriesFailed: 'WebhookDeliveriesFailed',
  /**
   * Runs and generating tests the watchdog found stalled: each re-delivery of their jobs, and each
   * failing of what was left (Count), also per `kind` (`run`, `test`).
   */
  RunsStalled: 'RunsStalled',
  /** Queue jobs settled as failed on their last receive (`giveUp`, Count). */
  JobsGivenUp: 'JobsGivenUp',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];
