/**
 * Every key of the table, built by pure functions. Nothing else writes a key.
 */
export interface Key {
  pk: string;
  sk: string;
}

/** Catalog record types stored under their organization's partition. */
export const CATALOG_TYPES = [
  'PRODUCT',
  'VERSION',
  'ECON',
  'PHONE',
  'METRIC',
  'SPEC',
  'TEST',
  'MONITOR',
  'APIKEY',
  'TCASE',
  'RUN',
  'WEBHOOK',
  'RQUEUE',
] as const;
export type CatalogType = (typeof CATALOG_TYPES)[number];

export const PLATFORM_ORG = '_platform';

export const keys = {
  organization: (orgId: string): Key => ({ pk: `ORG#${orgId}`, sk: 'ORG' }),
  /** The credit spend of one organization in one cycle (`YYYY-MM`). */
  orgSpend: (orgId: string, cycle: string): Key => ({ pk: `ORG#${orgId}`, sk: `SPEND#${cycle}` }),

  /** Lookup item of an API key by the SHA-256 of its body (read by the authorizer). */
  apiKeyLookup: (hash: string): Key => ({ pk: `KEY#${hash}`, sk: 'KEY' }),

  /** A catalog record of an organization. */
  catalog: (orgId: string, type: CatalogType, id: string): Key => ({ pk: `ORG#${orgId}`, sk: `${type}#${id}` }),
  catalogPrefix: (orgId: string, type: CatalogType): { pk: string; skPrefix: string } => ({
    pk: `ORG#${orgId}`,
    skPrefix: `${type}#`,
  }),
  /** gsi1: the catalog records of one product, by type, oldest first. */
  byProduct: (productId: string, type: CatalogType, createdAt: string, id: string) => ({
    gsi1pk: `PRODUCT#${productId}#${type}`,
    gsi1sk: `${createdAt}#${id}`,
  }),
  byProductPartition: (productId: string, type: CatalogType): string => `PRODUCT#${productId}#${type}`,

  /** Guard item keeping a version name unique within its product. */
  versionName: (productId: string, name: string): Key => ({ pk: `PRODUCT#${productId}`, sk: `VERSIONNAME#${name}` }),
  /** Write-only secrets of an endpoint connection: a separate item that no read path loads. */
  endpointSecrets: (orgId: string, id: string): Key => ({ pk: `ORG#${orgId}`, sk: `SECRET#ECON#${id}` }),
  /** The rate-limit token of an endpoint connection (GCRA: the earliest start of its next call). */
  rateLimit: (connectionId: string): Key => ({ pk: `RATE#${connectionId}`, sk: 'RATE' }),

  /** gsi2: every metric of one revision family, oldest first. */
  metricFamily: (groupId: string, createdAt: string, id: string) => ({
    gsi2pk: `MGROUP#${groupId}`,
    gsi2sk: `${createdAt}#${id}`,
  }),
  metricFamilyPartition: (groupId: string): string => `MGROUP#${groupId}`,
  /** Platform-wide evaluator models. */
  model: (name: string): Key => ({ pk: `ORG#${PLATFORM_ORG}`, sk: `MODEL#${name}` }),
  /**
   * A metric ↔ specification link, owned by the specification's organization (so links to
   * predefined metrics stay private to it).
   */
  metricLink: (orgId: string, metricId: string, specId: string): Key => ({
    pk: `ORG#${orgId}`,
    sk: `MLINK#${metricId}#${specId}`,
  }),

  /** gsi1: the test cases of one test, in file order. */
  byTest: (testId: string, index: number, id: string) => ({
    gsi1pk: `TEST#${testId}#TCASE`,
    gsi1sk: `${String(index).padStart(6, '0')}#${id}`,
  }),
  byTestPartition: (testId: string): string => `TEST#${testId}#TCASE`,

  // ---------- high-volume records, partitioned by their own session ----------
  session: (id: string): Key => ({ pk: `SESSION#${id}`, sk: '#' }),
  /** gsi1: the sessions of a version; gsi2: the sessions of a test. */
  sessionByVersion: (versionId: string, createdAt: string, id: string) => ({
    gsi1pk: `VERSION#${versionId}#SESSION`,
    gsi1sk: `${createdAt}#${id}`,
  }),
  sessionByVersionPartition: (versionId: string): string => `VERSION#${versionId}#SESSION`,
  sessionByTest: (testId: string, createdAt: string, id: string) => ({
    gsi2pk: `TEST#${testId}#SESSION`,
    gsi2sk: `${createdAt}#${id}`,
  }),
  sessionByTestPartition: (testId: string): string => `TEST#${testId}#SESSION`,
  /** Sessions of an organization with one customId. */
  sessionCustomId: (orgId: string, customId: string, sessionId: string): Key => ({
    pk: `ORG#${orgId}#CUSTOM#${customId}`,
    sk: `SESSION#${sessionId}`,
  }),
  sessionCustomIdPartition: (orgId: string, customId: string): string => `ORG#${orgId}#CUSTOM#${customId}`,
  turn: (sessionId: string, index: number): Key => ({
    pk: `SESSION#${sessionId}`,
    sk: `TURN#${String(index).padStart(6, '0')}`,
  }),
  evaluation: (sessionId: string, id: string): Key => ({ pk: `SESSION#${sessionId}`, sk: `EVAL#${id}` }),
  /** gsi2 (sparse): a session-partitioned record by its own id (turns, evaluations). */
  byOwnId: (id: string) => ({ gsi2pk: `BYID#${id}`, gsi2sk: '#' }),
  byOwnIdPartition: (id: string): string => `BYID#${id}`,
  /** Spans are their own partition (ids are client-given and globally unique). */
  span: (id: string): Key => ({ pk: `SPAN#${id}`, sk: 'SPAN' }),
  spanBySession: (sessionId: string, startTime: string, id: string) => ({
    gsi1pk: `SESSION#${sessionId}#SPANS`,
    gsi1sk: `${startTime}#${id}`,
  }),
  spanBySessionPartition: (sessionId: string): string => `SESSION#${sessionId}#SPANS`,
  spanByTurn: (inferenceResultId: string, startTime: string, id: string) => ({
    gsi2pk: `INF#${inferenceResultId}#SPANS`,
    gsi2sk: `${startTime}#${id}`,
  }),
  spanByTurnPartition: (inferenceResultId: string): string => `INF#${inferenceResultId}#SPANS`,

  // ---------- monitors ----------
  /** gsi2 (sparse): live monitors by shard, so the scanner reads them without a Scan. */
  monitorShard: (shard: number, id: string) => ({ gsi2pk: `MONITORS#${shard}`, gsi2sk: id }),
  monitorShardPartition: (shard: number): string => `MONITORS#${shard}`,
  monitorWaiting: (monitorId: string, sessionId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `WAIT#${sessionId}`,
  }),
  /** gsi1: a monitor's waiting sessions by their last turn. */
  monitorWaitingByTurn: (monitorId: string, lastTurnAt: string, sessionId: string) => ({
    gsi1pk: `MONITOR#${monitorId}#WAITING`,
    gsi1sk: `${lastTurnAt}#${sessionId}`,
  }),
  monitorWaitingPartition: (monitorId: string): string => `MONITOR#${monitorId}#WAITING`,
  monitorQueued: (monitorId: string, sessionId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `QUEUED#${sessionId}`,
  }),
  monitorEvaluationGuard: (monitorId: string, sessionId: string, groupId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `EVALFOR#${sessionId}#${groupId}`,
  }),
  monitorScore: (monitorId: string, day: string, groupId: string, sessionId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `SCORE#${day}#${groupId}#${sessionId}`,
  }),
  monitorScored: (monitorId: string, sessionId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `SCORED#${sessionId}`,
  }),
  /** gsi1: a monitor's scored sessions, newest first. */
  monitorScoredByTime: (monitorId: string, evaluatedAt: string, sessionId: string) => ({
    gsi1pk: `MONITOR#${monitorId}#SCORED`,
    gsi1sk: `${evaluatedAt}#${sessionId}`,
  }),
  monitorScoredPartition: (monitorId: string): string => `MONITOR#${monitorId}#SCORED`,
  monitorBucket: (monitorId: string, day: string, groupId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `BUCKET#${day}#${groupId}`,
  }),
  monitorSampling: (monitorId: string, at: string): Key => ({ pk: `MONITOR#${monitorId}`, sk: `SAMPLING#${at}` }),
  monitorAttempt: (monitorId: string, at: string, evaluationId: string): Key => ({
    pk: `MONITOR#${monitorId}`,
    sk: `ATTEMPT#${at}#${evaluationId}`,
  }),
  monitorStats: (monitorId: string): Key => ({ pk: `MONITOR#${monitorId}`, sk: 'STATS' }),
  /** Buckets to recompute (the aggregator's work list), sharded like monitors. */
  dirtyBucket: (shard: number, monitorId: string, day: string, groupId: string): Key => ({
    pk: `DIRTY#${shard}`,
    sk: `${monitorId}#${day}#${groupId}`,
  }),
  /** A monitor's spend in one cycle (`YYYY-MM`). */
  monitorSpend: (monitorId: string, cycle: string): Key => ({ pk: `MONITOR#${monitorId}`, sk: `SPEND#${cycle}` }),

  // ---------- runs ----------
  /** A run's sessions (an index item per session, written with the session): `RUN#<run>` / `<createdAt>#<session>`. */
  runSession: (runId: string, createdAt: string, sessionId: string): Key => ({
    pk: `RUN#${runId}`,
    sk: `${createdAt}#${sessionId}`,
  }),
  runSessionPartition: (runId: string): string => `RUN#${runId}`,
  /** gsi2 (sparse, while the run has not finished): runs the stall watchdog looks at, sharded. */
  activeRun: (shard: number, runId: string) => ({ gsi2pk: `ACTIVERUNS#${shard}`, gsi2sk: runId }),
  activeRunPartition: (shard: number): string => `ACTIVERUNS#${shard}`,
  /** What the stall watchdog saw of a run: its counters, when they last moved, its re-deliveries. */
  runWatch: (runId: string): Key => ({ pk: `RUNWATCH#${runId}`, sk: '#' }),
  /** One of a run's counter shards (shared/db/run-counters.ts), each its own partition. */
  runShard: (runId: string, shard: number): Key => ({ pk: `RUNSHARD#${runId}#${shard}`, sk: '#' }),

  // ---------- generating tests (the stall watchdog) ----------
  /** gsi2 (sparse, on a test item from the start of a generation until the watchdog sees it ended), sharded. */
  generatingTest: (shard: number, testId: string) => ({ gsi2pk: `GENTESTS#${shard}`, gsi2sk: testId }),
  generatingTestPartition: (shard: number): string => `GENTESTS#${shard}`,
  /** What the stall watchdog saw of a test's generation: its action and step, when they last moved, its re-deliveries. */
  generationWatch: (testId: string): Key => ({ pk: `GENWATCH#${testId}`, sk: '#' }),

  // ---------- webhooks and alerts ----------
  /** The signing secret of a webhook endpoint: a separate item that no read route loads. */
  webhookSecret: (orgId: string, id: string): Key => ({ pk: `ORG#${orgId}`, sk: `SECRET#WEBHOOK#${id}` }),
  /** One message to one endpoint (its attempts inside), newest last by its ULID id. */
  webhookDelivery: (webhookId: string, deliveryId: string): Key => ({
    pk: `WEBHOOK#${webhookId}`,
    sk: `DELIVERY#${deliveryId}`,
  }),
  webhookDeliveryPrefix: (webhookId: string): { pk: string; skPrefix: string } => ({
    pk: `WEBHOOK#${webhookId}`,
    skPrefix: 'DELIVERY#',
  }),
  /** gsi1 (sparse, while an attempt is due): pending deliveries by due time, sharded, for the sweep. */
  deliveryDue: (shard: number, nextAttemptAt: string, deliveryId: string) => ({
    gsi1pk: `WHDUE#${shard}`,
    gsi1sk: `${nextAttemptAt}#${deliveryId}`,
  }),
  deliveryDuePartition: (shard: number): string => `WHDUE#${shard}`,
  /** The once-only guard of an event (its dedupe key): a second emission finds it and sends nothing. */
  eventGuard: (orgId: string, dedupeKey: string): Key => ({ pk: `ORG#${orgId}#EVENTS`, sk: dedupeKey }),
  /** A monitor's alert rules and alerts. */
  alertRule: (monitorId: string, ruleId: string): Key => ({ pk: `MONITOR#${monitorId}`, sk: `ALERTRULE#${ruleId}` }),
  alert: (monitorId: string, alertId: string): Key => ({ pk: `MONITOR#${monitorId}`, sk: `ALERT#${alertId}` }),

  // ---------- human review ----------
  /** A review queue's item, oldest first by its ULID id. */
  reviewItem: (queueId: string, itemId: string): Key => ({ pk: `RQUEUE#${queueId}`, sk: `ITEM#${itemId}` }),
  reviewItemPrefix: (queueId: string): { pk: string; skPrefix: string } => ({
    pk: `RQUEUE#${queueId}`,
    skPrefix: 'ITEM#',
  }),
  /** gsi1 (sparse, while PENDING): a queue's items left to label, oldest first. */
  reviewPending: (queueId: string, itemId: string) => ({ gsi1pk: `RQUEUE#${queueId}#PENDING`, gsi1sk: itemId }),
  reviewPendingPartition: (queueId: string): string => `RQUEUE#${queueId}#PENDING`,
  /** The guard that keeps a session once in a queue (it names the session's item). */
  reviewSession: (queueId: string, sessionId: string): Key => ({ pk: `RQUEUE#${queueId}`, sk: `SESSION#${sessionId}` }),
  reviewSessionPrefix: (queueId: string): { pk: string; skPrefix: string } => ({
    pk: `RQUEUE#${queueId}`,
    skPrefix: 'SESSION#',
  }),
  /** One reviewer's label of one metric on one item: the metric's labels, by session. */
  label: (metricId: string, sessionId: string, itemId: string, reviewer: string): Key => ({
    pk: `LABELS#${metricId}`,
    sk: `${sessionId}#${itemId}#${reviewer}`,
  }),
  labelPartition: (metricId: string): string => `LABELS#${metricId}`,
  /** gsi1 (labels of a run's sessions only): a run's labels, by metric. */
  labelByRun: (runId: string, metricId: string, sessionId: string, itemId: string, reviewer: string) => ({
    gsi1pk: `RUN#${runId}#LABELS`,
    gsi1sk: `${metricId}#${sessionId}#${itemId}#${reviewer}`,
  }),
  labelByRunPartition: (runId: string): string => `RUN#${runId}#LABELS`,

  // ---------- OpenTelemetry ingestion ----------
  /** An OTel trace of an organization → its session and turn (one trace is one turn). */
  otelTrace: (orgId: string, traceId: string): Key => ({ pk: `OTEL#${orgId}#TRACE#${traceId}`, sk: 'TRACE' }),
  /** The session OTel ingestion created for a customId (so two exports never create two). */
  otelSessionClaim: (orgId: string, customId: string): Key => ({
    pk: `OTEL#${orgId}#SESSION#${customId}`,
    sk: 'CLAIM',
  }),
  /** Spans of a trace that named no session yet, held until one of its spans does: a marker… */
  otelParked: (orgId: string, traceId: string): Key => ({ pk: `OTEL#${orgId}#PARKED#${traceId}`, sk: '#' }),
  /** …and each held span. */
  otelParkedSpan: (orgId: string, traceId: string, spanId: string): Key => ({
    pk: `OTEL#${orgId}#PARKED#${traceId}`,
    sk: `SPAN#${spanId}`,
  }),

  /** Owner pointer of an id: lets a read tell "another organization's" (403) from "none" (404). */
  idOwner: (id: string): Key => ({ pk: `ID#${id}`, sk: 'ID' }),
} as const;
