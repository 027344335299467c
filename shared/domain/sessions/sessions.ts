import type { AuthContext } from '../../auth/context.js';
import { getRecord, liveCheck, transact, type TransactItem } from '../../db/catalog.js';
import { keys } from '../../db/keys.js';
import { GuardTakenError } from '../../db/errors.js';
import { batchGet } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import {
  customIdRelease,
  customIdWrite,
  getSession,
  newSessionWrite,
  sessionIdsByCustomId,
  sessionRecord,
  sessionsByTest,
  sessionsByVersion,
  sessionUpdate,
  testActivityMark,
} from '../../db/sessions.js';
import { getStoredRun, sessionsOfRun } from '../../db/runs.js';
import { testVersionMarkWrite } from '../../db/tests.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { Version } from '../../schemas/products.js';
import type { SessionCreate, SessionListQuery, SessionUpdate } from '../../schemas/sessions.js';
import { clock } from '../common/clock.js';
import { testCaseEntity, versionEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { anyOf, applyList, type Page } from '../common/list.js';
import { sessionLifecycle } from './session-lifecycle.js';
import { bodyReference } from '../common/references.js';
import type { Session } from '../../schemas/sessions.js';
import type { TestCase } from '../../schemas/tests.js';
import { voiceStateOf } from '../voice/figures.js';
import { acceptRecording, type AcceptedRecording } from '../voice/recording-uri.js';
import { requestVoiceFigures } from '../voice/voice-requests.js';

/** Plain-text context is stored as `{value}`. */
function contextOf(value: string | Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? { value } : value;
}

/**
 * Creates a session (production unless it names a test case) and attaches monitors. `guard` (a
 * conditional write, e.g. the OTel customId claim) commits with it; when its condition fails
 * nothing is written and GuardTakenError is thrown.
 */
export async function createSession(
  auth: AuthContext,
  input: SessionCreate,
  options: { guard?: (session: Session) => TransactItem } = {},
): Promise<Session> {
  const version = await bodyReference(
    () => getRecord<Version>(versionEntity, auth.organizationId, input.versionId),
    'versionId',
    input.versionId,
    'version',
  );
  let testCase: TestCase | undefined;
  if (input.testCaseId) {
    testCase = await bodyReference(
      () => getRecord<TestCase>(testCaseEntity, auth.organizationId, input.testCaseId!),
      'testCaseId',
      input.testCaseId,
      'test case',
    );
    if (testCase.productId !== version.productId)
      throw new ValidationError(`testCaseId ${testCase.id} belongs to another product than version ${version.id}`);
  }
  const recording = input.recordingUri ? await acceptRecording(auth, input.recordingUri) : undefined;
  const now = clock.now().toISOString();
  const session: Session = {
    id: newId('session'),
    organizationId: auth.organizationId,
    productId: version.productId,
    versionId: version.id,
    userId: auth.userId,
    customId: input.customId ?? null,
    testId: testCase?.testId ?? null,
    testCaseId: testCase?.id ?? null,
    context: contextOf(input.context),
    stoppingReason: null,
    recordingUri: recording?.recordingUri ?? null,
    voice: null,
    voiceError: recording?.voiceError ?? null,
    error: null,
    status: 'PENDING',
    isProduction: !testCase,
    metadata: input.metadata ?? {},
    turnCount: 0,
    lastTurnAt: null,
    closedAt: null,
    createdAt: now,
  };
  const items: TransactItem[] = [newSessionWrite(session), liveCheck(versionEntity, auth.organizationId, version.id)];
  if (session.customId) items.push(customIdWrite(auth.organizationId, session.customId, session.id));
  if (session.testId) {
    // Keeps GET /tests?versionIds= answerable from the test record itself.
    items.push(testVersionMarkWrite(auth.organizationId, session.testId, version.id));
  }
  if (options.guard) items.push(options.guard(session));
  await transact(items, (codes) =>
    options.guard && codes[items.length - 1] === 'ConditionalCheckFailed'
      ? new GuardTakenError('the guarded item exists')
      : undefined,
  );
  await sessionLifecycle.created(session);
  if (recording?.analyse) await requestVoiceFigures({ id: session.id, recordingUri: recording.recordingUri });
  return session;
}

export function getSessionById(auth: AuthContext, id: string): Promise<Session> {
  return getSession(auth.organizationId, id, { includeDeleted: true });
}

export async function listSessions(auth: AuthContext, query: SessionListQuery): Promise<Page<Session>> {
  if (!query.versionIds && !query.testIds && !query.testCaseIds && !query.customIds && !query.runIds) {
    throw new ValidationError('one of versionIds, testIds, testCaseIds, customIds or runIds is required');
  }
  let candidates: Session[];
  if (query.runIds) {
    // Another organization's run is a 403, an unknown one a 404 (like a path id).
    for (const id of query.runIds) await getStoredRun(auth.organizationId, id);
    candidates = (await Promise.all(query.runIds.map(sessionsOfRun))).flat();
  } else if (query.versionIds) {
    candidates = (await Promise.all(query.versionIds.map(sessionsByVersion))).flat();
  } else if (query.testIds) {
    candidates = (await Promise.all(query.testIds.map(sessionsByTest))).flat();
  } else if (query.testCaseIds) {
    const cases = (await batchGet(query.testCaseIds.map((id) => keys.catalog(auth.organizationId, 'TCASE', id)))).map(
      (i) => toRecord<TestCase>(i),
    );
    candidates = (await Promise.all([...new Set(cases.map((c) => c.testId))].map(sessionsByTest))).flat();
  } else {
    const ids = (await Promise.all(query.customIds!.map((c) => sessionIdsByCustomId(auth.organizationId, c)))).flat();
    candidates = (await batchGet([...new Set(ids)].map((id) => keys.session(id)))).map(sessionRecord);
  }
  const mine = candidates.filter((s) => s.organizationId === auth.organizationId && !s.deletedAt);
  return applyList(mine as (Session & { name?: string })[], query, {
    sortable: ['createdAt', 'status', 'lastTurnAt', 'customId'],
    filters: [
      ...anyOf<Session>(query.versionIds, (s) => s.versionId),
      ...anyOf<Session>(query.testIds, (s) => s.testId),
      ...anyOf<Session>(query.testCaseIds, (s) => s.testCaseId),
      ...anyOf<Session>(query.customIds, (s) => s.customId),
      ...anyOf<Session>(query.runIds, (s) => s.runId),
      ...anyOf<Session>(query.statuses, (s) => s.status),
      ...(query.isProduction === undefined ? [] : [(s: Session) => s.isProduction === query.isProduction]),
    ],
  });
}

export async function updateSession(auth: AuthContext, id: string, body: SessionUpdate): Promise<Session> {
  const current = await getSession(auth.organizationId, id);
  const set: Record<string, unknown> = {};
  if (body.status !== undefined) set.status = body.status;
  if (body.error !== undefined) set.error = body.error;
  if (body.stoppingReason !== undefined) set.stoppingReason = body.stoppingReason;
  if (body.metadata !== undefined) set.metadata = body.metadata;
  if (body.context !== undefined) set.context = contextOf(body.context);
  if (body.customId !== undefined) set.customId = body.customId;
  // A new recording (or none) drops the figures of the last; the same one again keeps them.
  const recording = body.recordingUri ? await acceptRecording(auth, body.recordingUri) : undefined;
  if (body.recordingUri !== undefined) {
    set.recordingUri = recording?.recordingUri ?? null;
    if (set.recordingUri !== current.recordingUri)
      Object.assign(set, { voice: null, voiceError: recording?.voiceError ?? null });
  }
  const closing = body.status !== undefined && current.closedAt === null;
  if (closing) set.closedAt = clock.now().toISOString();
  const items: TransactItem[] = [sessionUpdate(id, set)];
  if (body.customId !== undefined && body.customId !== current.customId) {
    if (current.customId) items.push(customIdRelease(auth.organizationId, current.customId, id));
    if (body.customId) items.push(customIdWrite(auth.organizationId, body.customId, id));
  }
  await transact(items, (codes) =>
    codes[0] === 'ConditionalCheckFailed' ? new NotFoundError(`session ${id} not found`) : undefined,
  );
  const updated = { ...current, ...set } as Session;
  if (closing) await sessionLifecycle.closed(updated);
  if (recording && figuresWanted(recording, updated))
    await requestVoiceFigures({ id, recordingUri: recording.recordingUri });
  return updated;
}

/** A recording the job reads whose figures are not there yet (a new one, or the same one set again while pending). */
function figuresWanted(recording: AcceptedRecording, session: Session): boolean {
  return recording.analyse && voiceStateOf(session).state === 'pending';
}

export async function deleteSession(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  const current = await getSession(auth.organizationId, id);
  const deletedAt = clock.now().toISOString();
  const items: TransactItem[] = [sessionUpdate(id, { deletedAt })];
  if (current.customId) items.push(customIdRelease(auth.organizationId, current.customId, id));
  await transact(items);
  return { id, deletedAt };
}

/** Marks the session's test as having spans or evaluations (for GET /tests filters). */
export function testActivityUpdate(session: Session, flag: '_hasTraces' | '_hasEvaluations'): TransactItem[] {
  return session.testId ? [testActivityMark(session.organizationId, session.testId, flag)] : [];
}
