/** What a deterministic metric answers, and the error that fails its evaluation. */

export class MetricInputError extends Error {}

/** Thrown when the session holds nothing the metric measures: the evaluation is SKIPPED with the message. */
export class MetricSkippedError extends Error {}

/** A metric's answer: the score and what it found. */
export interface MetricResult {
  score: number;
  reason: string;
}

/** The score and the reason without the metric's name (the table below, or a check, adds it). */
export interface Finding {
  score: number;
  detail: string;
}
