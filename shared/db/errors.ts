/** Helpers to recognise DynamoDB's condition failures, so repositories can translate them. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** Cancellation reason codes of a failed transaction, one per item; undefined for other errors. */
export function transactionCancellationCodes(error: unknown): string[] | undefined {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[]; message?: string } | null;
  if (e?.name !== 'TransactionCanceledException') return undefined;
  if (e.CancellationReasons) return e.CancellationReasons.map((r) => r.Code ?? 'None');
  // Some engines only put the reasons in the message: "... [None, ConditionalCheckFailed]".
  const match = /\[([^\]]*)\]/.exec(e.message ?? '');
  return match ? match[1]!.split(',').map((s) => s.trim()) : [];
}

/** A transaction's guard item (a conditional write another writer already made) failed its condition: nothing was written. */
export class GuardTakenError extends Error {}
