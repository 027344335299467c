import type { ReviewLabel } from '../../schemas/review.js';

/** Pure rules of labelling: when an item is DONE, what a reviewer's new labels replace. */

/** The reviewers who labelled every metric of the queue. */
export function completeReviewers(metricIds: readonly string[], labels: readonly ReviewLabel[]): string[] {
  const byReviewer = new Map<string, Set<string>>();
  for (const l of labels) {
    const set = byReviewer.get(l.reviewer) ?? new Set<string>();
    set.add(l.metricId);
    byReviewer.set(l.reviewer, set);
  }
  return [...byReviewer].filter(([, metrics]) => metricIds.every((m) => metrics.has(m))).map(([r]) => r);
}

/** An item is DONE when `reviewersPerItem` distinct reviewers have labelled every metric of the queue. */
export function isDone(
  queue: { metricIds: readonly string[]; reviewersPerItem: number },
  labels: readonly ReviewLabel[],
): boolean {
  return completeReviewers(queue.metricIds, labels).length >= queue.reviewersPerItem;
}

/** Whether `reviewer` still has a metric of the queue to label on the item. */
export function awaits(metricIds: readonly string[], labels: readonly ReviewLabel[], reviewer: string): boolean {
  return !completeReviewers(metricIds, labels).includes(reviewer);
}

/** The item's labels after `reviewer` gave these: theirs for the same metrics are replaced, the rest kept. */
export function mergeLabels(
  labels: readonly ReviewLabel[],
  reviewer: string,
  given: readonly { metricId: string; score: number; reason?: string | null }[],
  at: string,
): ReviewLabel[] {
  const replaced = new Set(given.map((g) => g.metricId));
  return [
    ...labels.filter((l) => !(l.reviewer === reviewer && replaced.has(l.metricId))),
    ...given.map((g) => ({ reviewer, metricId: g.metricId, score: g.score, reason: g.reason ?? null, createdAt: at })),
  ];
}
