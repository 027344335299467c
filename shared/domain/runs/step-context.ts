import { readRecords, type RecordsRead, type RunPlanEntry, type RunSession, type StoredRun } from '../../db/runs.js';
import { restoreItem } from '../../db/offload.js';
import { toRecord } from '../../db/records.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import type { Product, Version } from '../../schemas/products.js';
import type { PhoneConnection } from '../../schemas/phone-connections.js';
import { getRecord } from '../../db/catalog.js';
import { phoneConnectionEntity } from '../common/entities.js';
import { toAgentConnection } from './caller/connection.js';
import type { AgentConnection } from './caller/index.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';
import type { TestCase, TestRecord } from '../../schemas/tests.js';

/**
 * What the steps of a run's sessions read. The run, its version, tests, test cases, connections,
 * metrics and product do not change while it runs, so the fan-out reads them once per page and
 * carries them in each step job; a step then reads only what changes (its session and what says
 * whether the run was cancelled) and the connections' secrets, which never travel in a job: one
 * BatchGet. Whatever is left out of a job (too large for a message) the step reads in that same
 * BatchGet.
 */

/** The test fields a step uses. */
export type CarriedTest = Pick<TestRecord, 'id' | 'type' | 'languageCode' | 'customUserPersona'>;

/** A turn of the conversation so far, as the simulated user and `past_turns` see it. */
export interface PastTurn {
  input: string;
  output: string | null;
}

export interface StepCarry {
  /** The run's counter shards (absent: a run that counts on its own item). */
  shards?: number;
  /** The run's threshold, when its sessions count their passes (absent: they do not). */
  threshold?: number;
  planIndex: number;
  productId: string;
  testId: string;
  testCaseId: string;
  testType: string;
  metricIds: string[];
  connectionIds: { conversation: string | null; initialization: string | null; finalization: string | null };
  /**
   * A voice run's session: the number it dials (carried whole: it holds no secret), and the run's
   * barge-in (absent: none; a case's context may set its own).
   */
  phone?: { connectionId: string; phoneNumber: string; agentSpeaksFirst: boolean; bargeInAfterMs?: number };
  /** The records; each one absent here is read by the step. */
  test?: CarriedTest;
  testCase?: TestCase;
  /** The version's live connections (records only: their secrets stay in the table). */
  connections?: EndpointConnection[];
  metrics?: StoredMetric[];
  product?: Product;
  /** A multi-turn session's turns so far, passed on by the step that recorded the last one. */
  turns?: PastTurn[];
}

/** What a step works with: the records, the connections ready to call. */
export interface StepRecords {
  runId: string;
  carry: StepCarry;
  test: CarriedTest | undefined;
  testCase: TestCase | undefined;
  product: Product | undefined;
  connectionRecords: Map<string, EndpointConnection>;
  conversation: AgentConnection | undefined;
  initialization: AgentConnection | undefined;
  finalization: AgentConnection | undefined;
  metrics: StoredMetric[];
}

/** A job stays well under SQS's 256 KiB: a carry above this leaves out its test case, then its other records. */
export const MAX_CARRY_BYTES = 48 * 1024;

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The records every session of one plan entry needs, read once (two BatchGets) by a fan-out page. */
export interface EntryRecords {
  version: Version;
  test: CarriedTest | undefined;
  connections: EndpointConnection[];
  metrics: StoredMetric[];
  product: Product | undefined;
  /** A PHONE run's phone connection. */
  phone?: PhoneConnection;
}

export async function readEntryRecords(run: StoredRun, entry: RunPlanEntry): Promise<EntryRecords | undefined> {
  const first = await readRecords({
    orgId: run.organizationId,
    versionId: run.versionId,
    testId: entry.testId,
    productId: run.productId,
    metricIds: entry.metricIds,
  });
  if (!first.version) return undefined;
  const v = first.version;
  const ids = [
    v.conversationEndpointConnectionId,
    v.initializationEndpointConnectionId,
    v.finalizationEndpointConnectionId,
  ].filter((id): id is string => Boolean(id));
  const second = ids.length ? await readRecords({ orgId: run.organizationId, connectionIds: ids }) : undefined;
  const phone =
    run.channel === 'PHONE' && v.phoneConnectionId
      ? await getRecord<PhoneConnection>(phoneConnectionEntity, run.organizationId, v.phoneConnectionId).catch(
          () => undefined,
        )
      : undefined;
  return {
    ...(phone ? { phone } : {}),
    version: v,
    test: first.test ? carriedTest(first.test) : undefined,
    connections: [...(second?.connections.values() ?? [])],
    metrics: entry.metricIds.flatMap((id) => first.metrics.get(id) ?? []),
    product: first.product,
  };
}

const carriedTest = (t: CarriedTest): CarriedTest => ({
  id: t.id,
  type: t.type,
  languageCode: t.languageCode,
  customUserPersona: t.customUserPersona,
});

/**
 * The carry of one session's steps: the entry's records and its test case, as far as they fit.
 * A test case with fields kept in S3 is left out (the step reads and restores it).
 */
export function carryFor(
  run: Pick<StoredRun, '_shards' | 'channel' | 'threshold' | '_passCounted' | 'bargeInAfterMs'>,
  planIndex: number,
  entry: RunPlanEntry,
  records: EntryRecords,
  testCase: TestCase,
  offloaded: boolean,
): StepCarry {
  const v = records.version;
  const base: StepCarry = {
    ...(run._shards ? { shards: run._shards } : {}),
    ...(run._shards && run._passCounted ? { threshold: run.threshold ?? 0.5 } : {}),
    planIndex,
    productId: v.productId,
    testId: entry.testId,
    testCaseId: testCase.id,
    testType: records.test?.type ?? entry.testType,
    metricIds: entry.metricIds,
    connectionIds: {
      conversation: v.conversationEndpointConnectionId ?? null,
      initialization: v.initializationEndpointConnectionId ?? null,
      finalization: v.finalizationEndpointConnectionId ?? null,
    },
    ...(run.channel === 'PHONE' && records.phone
      ? {
          phone: {
            connectionId: records.phone.id,
            phoneNumber: records.phone.phoneNumber,
            agentSpeaksFirst: records.phone.agentSpeaksFirst,
            ...(run.bargeInAfterMs !== undefined ? { bargeInAfterMs: run.bargeInAfterMs } : {}),
          },
        }
      : {}),
  };
  const shared: StepCarry = {
    ...base,
    ...(records.test ? { test: records.test } : {}),
    connections: records.connections,
    metrics: records.metrics,
    ...(records.product ? { product: records.product } : {}),
  };
  if (bytes(shared) > MAX_CARRY_BYTES) return base;
  const whole = offloaded ? shared : { ...shared, testCase };
  return bytes(whole) > MAX_CARRY_BYTES ? shared : whole;
}

/** A turn history worth carrying to the next step, or undefined when it would make the job too large. */
export function carriedTurns(turns: PastTurn[]): PastTurn[] | undefined {
  return bytes(turns) > MAX_CARRY_BYTES ? undefined : turns;
}

/**
 * A step's one read: its session, the connections' secrets, whether the run was cancelled, and
 * whatever its carry left out.
 */
export async function readStep(
  orgId: string,
  runId: string,
  sessionId: string,
  carry: StepCarry,
  options: { organization?: boolean } = {},
): Promise<{ read: RecordsRead; records: StepRecords }> {
  const ids = Object.values(carry.connectionIds).filter((id): id is string => Boolean(id));
  const known = carry.connections ? new Map(carry.connections.map((c) => [c.id, c])) : undefined;
  const read = await readRecords({
    orgId,
    sessionId,
    ...(carry.test ? {} : { testId: carry.testId }),
    ...(carry.testCase ? {} : { testCaseId: carry.testCaseId }),
    ...(carry.metrics ? {} : { metricIds: carry.metricIds }),
    ...(carry.product ? {} : { productId: carry.productId }),
    ...(known ? {} : { connectionIds: ids }),
    secretIds: ids.filter((id) => {
      const c = known?.get(id);
      return !known || (c !== undefined && (c.hasAuthToken || c.hasPassword));
    }),
    cancelledOf: { runId, sessionId, shards: carry.shards },
    ...(options.organization ? { organization: true } : {}),
  });
  let testCase = carry.testCase ?? read.testCase;
  if (!carry.testCase && read.testCaseItem?._offloaded)
    testCase = toRecord<TestCase>(await restoreItem(read.testCaseItem));
  const connections = known ?? read.connections;
  const agent = (id: string | null) => {
    const record = id ? connections.get(id) : undefined;
    return record ? toAgentConnection(record, read.secrets.get(record.id) ?? {}) : undefined;
  };
  const metrics = carry.metrics ?? carry.metricIds.flatMap((id) => read.metrics.get(id) ?? []);
  return {
    read,
    records: {
      runId,
      carry,
      test: carry.test ?? (read.test ? carriedTest(read.test) : undefined),
      testCase,
      product: carry.product ?? read.product,
      connectionRecords: connections,
      conversation: agent(carry.connectionIds.conversation),
      initialization: agent(carry.connectionIds.initialization),
      finalization: agent(carry.connectionIds.finalization),
      metrics,
    },
  };
}

/** The carry of a job that has none (queued before jobs carried their records): built from the run. */
export async function carryOfRun(run: StoredRun, session: RunSession): Promise<StepCarry | undefined> {
  const planIndex = run._plan.findIndex((p) => p.testId === session.testId);
  const entry = run._plan[planIndex];
  if (!entry || !session.testCaseId) return undefined;
  const records = await readEntryRecords(run, entry);
  if (!records) return undefined;
  // Carried without its test case: the step reads that by the session's testCaseId.
  return carryFor(run, planIndex, entry, records, { id: session.testCaseId } as TestCase, true);
}
