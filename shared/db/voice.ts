import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { transact, updateIf, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { batchGet } from './query.js';
import { runSessionIds } from './runs.js';
import type { RunSessionsVoice, SessionVoice } from '../schemas/voice.js';

/**
 * The voice figures' writes and reads: a session's figures (stored only while the session still
 * names the recording they come from), and a run's spread of them, kept current with a stamp: each
 * session's figures stored for a run add one to the run's `_voiceStamp`, and the run's `_voice`
 * records the stamp it was computed at (`_voiceOf`), so a spread computed before a late figure
 * landed is seen to be stale and is written again only on condition that no other landed since.
 */

/** What the voice job stores on a session: the figures, or null and why. */
export interface SessionVoiceResult {
  voice: SessionVoice | null;
  voiceError: string | null;
}

/**
 * Stores a session's voice figures while its `recordingUri` is still `recordingUri` (and, for a
 * run's session, adds one to the run's stamp in the same transaction); false when the session
 * names another recording now, or is gone.
 */
export async function storeSessionVoice(
  session: { id: string; organizationId: string; runId?: string | null },
  recordingUri: string,
  result: SessionVoiceResult,
): Promise<boolean> {
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName,
        Key: keys.session(session.id),
        UpdateExpression: 'SET #v = :v, #e = :e REMOVE #lease',
        ConditionExpression: 'attribute_exists(pk) AND #u = :u',
        ExpressionAttributeNames: { '#v': 'voice', '#e': 'voiceError', '#u': 'recordingUri', '#lease': '_voiceLease' },
        ExpressionAttributeValues: { ':v': result.voice, ':e': result.voiceError, ':u': recordingUri },
      },
    },
  ];
  if (session.runId)
    items.push({
      Update: {
        TableName: tableName,
        Key: keys.catalog(session.organizationId, 'RUN', session.runId),
        UpdateExpression: 'ADD #stamp :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#stamp': '_voiceStamp' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    });
  try {
    await transact(items, (codes) => (codes[0] === 'ConditionalCheckFailed' ? new StaleRecording() : undefined));
    return true;
  } catch (error) {
    if (error instanceof StaleRecording) return false;
    throw error;
  }
}
class StaleRecording extends Error {}

/**
 * Takes the session's analysis lease (`_voiceLease`: the recording and the lease's end) while it
 * names `recordingUri` and no lease on that recording ends after `freeBelow` (shared/db/leases.ts):
 * one job decodes a recording at a time, however many asked. False when another holds it, or the
 * session names another recording.
 */
export async function claimVoiceAnalysis(
  sessionId: string,
  recordingUri: string,
  until: number,
  freeBelow: number,
): Promise<boolean> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.session(sessionId),
        UpdateExpression: 'SET #lease = :lease',
        ConditionExpression:
          'attribute_exists(pk) AND #u = :u AND (attribute_not_exists(#lease) OR #lease.#until < :free OR #lease.#uri <> :u)',
        ExpressionAttributeNames: { '#lease': '_voiceLease', '#u': 'recordingUri', '#until': 'until', '#uri': 'uri' },
        ExpressionAttributeValues: { ':lease': { uri: recordingUri, until }, ':u': recordingUri, ':free': freeBelow },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Gives the lease back (a job that failed, so its next delivery may take it at once). */
export async function releaseVoiceAnalysis(sessionId: string, until: number): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.session(sessionId),
        UpdateExpression: 'REMOVE #lease',
        ConditionExpression: '#lease.#until = :until',
        ExpressionAttributeNames: { '#lease': '_voiceLease', '#until': 'until' },
        ExpressionAttributeValues: { ':until': until },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/** The figures a run's spread is computed from: each field but the segments. */
const FIGURES = [
  'agentSpeechMs',
  'userSpeechMs',
  'talkRatio',
  'overlapMs',
  'agentInterruptions',
  'deadAirMs',
  'responseLatencyMs',
] as const;
export type VoiceFigures = Omit<SessionVoice, 'segments'>;

/** The voice figures of a run's sessions that have them (their segments not read). */
export async function runSessionFigures(runId: string): Promise<VoiceFigures[]> {
  const ids = await runSessionIds(runId);
  const items = await batchGet(
    ids.map((id) => keys.session(id)),
    true,
    {
      ProjectionExpression: FIGURES.map((f) => `#v.#${f}`).join(', '),
      ExpressionAttributeNames: { '#v': 'voice', ...Object.fromEntries(FIGURES.map((f) => [`#${f}`, f])) },
    },
  );
  return items
    .map((i) => i.voice as VoiceFigures | undefined)
    .filter((v): v is VoiceFigures => typeof v?.agentSpeechMs === 'number');
}

/**
 * Writes a run's voice figures computed at stamp `stamp`, on condition that no session's figures
 * landed since (its `_voiceStamp` is still `stamp`); false otherwise.
 */
export function setRunVoice(orgId: string, runId: string, voice: RunSessionsVoice, stamp: number): Promise<boolean> {
  return updateIf({
    TableName: tableName,
    Key: keys.catalog(orgId, 'RUN', runId),
    UpdateExpression: 'SET #voice = :voice, #of = :stamp',
    ConditionExpression:
      stamp === 0
        ? 'attribute_exists(pk) AND (attribute_not_exists(#stamp) OR #stamp = :stamp)'
        : 'attribute_exists(pk) AND #stamp = :stamp',
    ExpressionAttributeNames: { '#voice': '_voice', '#of': '_voiceOf', '#stamp': '_voiceStamp' },
    ExpressionAttributeValues: { ':voice': voice, ':stamp': stamp },
  });
}
