/**
 * What a run produced, read for its figures (pass rates, comparisons, JUnit): its sessions and
 * their evaluations. Queries only: the run's session index, the session items by key, and one
 * Query of each session's evaluations (pages followed), a few sessions at a time.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { batchGet } from './query.js';
import { toRecord } from './records.js';
import { runSessionIds } from './runs.js';
import { listEvaluations } from './sessions.js';
import type { Evaluation } from '../schemas/sessions.js';
import type { Session } from '../schemas/sessions.js';

/** One session of a run and its evaluations. */
export interface SessionResult {
  session: Session;
  evaluations: Evaluation[];
}

/** Sessions whose evaluations are read at once: enough to hide latency, few enough to stay under the table's read rate. */
const READ_CONCURRENCY = 16;

/** A run's sessions (oldest first) with their evaluations. */
export async function runResults(runId: string): Promise<SessionResult[]> {
  const ids = await runSessionIds(runId);
  const items = await batchGet(ids.map((id) => keys.session(id)));
  const byId = new Map(items.map((i) => [String(i.id), toRecord<Session>(i)]));
  const sessions = ids.map((id) => byId.get(id)).filter((s): s is Session => Boolean(s));
  const out: SessionResult[] = new Array(sessions.length);
  let next = 0;
  const worker = async () => {
    while (next < sessions.length) {
      const i = next++;
      const session = sessions[i]!;
      out[i] = { session, evaluations: await listEvaluations(session.id) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, sessions.length) }, worker));
  return out;
}

/**
 * Keeps a finished run's pass figures on its item (`_passFigures`, internal), so reads do not
 * recompute them from every evaluation. False when the run is gone.
 */
export async function storePassFigures(
  orgId: string,
  runId: string,
  figures: Record<string, unknown>,
): Promise<boolean> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.catalog(orgId, 'RUN', runId),
        UpdateExpression: 'SET #f = :f',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#f': '_passFigures' },
        ExpressionAttributeValues: { ':f': figures },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
