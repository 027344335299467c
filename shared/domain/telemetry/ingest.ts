import type { AuthContext } from '../../auth/context.js';
import { transact } from '../../db/catalog.js';
import { GuardTakenError } from '../../db/errors.js';
import { keys } from '../../db/keys.js';
import { batchGet } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import { discardObjects, offloadItems } from '../../db/offload.js';
import { getSessionWithInternals, getTurnItem, sessionIdsByCustomId, spanItem } from '../../db/sessions.js';
import {
  getSessionClaim,
  getTraceLinks,
  parkedSpans,
  parkSpans,
  PARKED_SECONDS,
  putNewSpanItems,
  sessionClaimPut,
  storedSpanOwners,
  traceLinkPut,
  tracesWithParkedSpans,
  unparkSpans,
  type TraceLink,
} from '../../db/telemetry.js';
import { DomainError } from '../../errors.js';
import { MAX_TURN_TEXT, type Session, type Span, type Turn } from '../../schemas/sessions.js';
import { clock } from '../common/clock.js';
import { createSession, testActivityUpdate } from '../sessions/sessions.js';
import { sessionLifecycle } from '../sessions/session-lifecycle.js';
import { SPAN_BUDGET_BYTES, SPAN_KIND, SPAN_OFFLOADABLE } from '../sessions/spans.js';
import { appendTurns, changeTurn, draftOf } from '../sessions/turns.js';
import {
  groupByTrace,
  platformSpanId,
  rootOf,
  spanFieldsOf,
  testCaseIdOf,
  traceSessionKey,
  turnFieldsOf,
  versionIdOf,
  type TurnFields,
} from './mapping.js';
import type { OtelSpan } from './otlp.js';

/**
 * OpenTelemetry ingestion: places the spans of one OTLP export in sessions, turns
 * and spans of the caller's organization.
 *
 * - Idempotent: a span id stored before is skipped (accepted, nothing changes); a trace's turn
 *   and a customId's session are created once, guarded by their link and claim items written in
 *   the same transaction, so a retried or concurrent export finds them instead of creating twins.
 * - Order: a trace's turn (and its texts, from the root span) is written before its spans, so an
 *   export that fails midway and is retried completes what the first attempt began.
 * - Spans of one trace may arrive in several exports: the first export of a trace creates its
 *   turn (empty texts when its root is not there yet); later spans join that turn through the
 *   trace link, and the root, whenever it comes, fills in the turn's input, output, usage and
 *   latency. A span needs its session key (on itself, its resource or another span of the same
 *   export's trace) only when its trace is new.
 * - A new trace whose spans in this export name no session (children exported before the root
 *   that carries `session.id`, as a batch processor does with a long turn) is held, accepted with
 *   a warning in partialSuccess, for up to 24 hours; the first export that places the trace (a
 *   span naming the session, or the trace's turn made meanwhile) places the held spans with it.
 */

export interface IngestResult {
  acceptedSpans: number;
  rejectedSpans: number;
  /** Why spans were rejected (a few reasons, then "and N more"); empty when none was. */
  errorMessage: string;
}

const MAX_REASONS = 5;
const SESSION_CONCURRENCY = 16;
const SPAN_CHUNK = 100;
const CUSTOM_ID_MAX = 200;
/** A held span is one item: larger ones (huge attributes) are rejected instead. */
const MAX_HELD_SPAN_BYTES = 350_000;
const NO_SESSION_KEY =
  'no session.id, gen_ai.conversation.id or thread_id attribute on the span, its resource or another span of its trace';

class Rejections {
  count = 0;
  private readonly reasons: string[] = [];
  private more = 0;
  /** Spans of this export: held spans of earlier exports placed now are not counted here. */
  constructor(private readonly own: Set<string>) {}
  add(all: OtelSpan[], reason: string): void {
    const spans = all.filter((s) => this.own.has(s.spanId));
    this.count += spans.length;
    this.note(spans, reason);
  }
  /** A warning about accepted spans (OTLP's errorMessage with no rejected span). */
  note(spans: OtelSpan[], reason: string): void {
    if (spans.length === 0) return;
    const ids =
      spans
        .slice(0, 3)
        .map((s) => s.spanId)
        .join(', ') + (spans.length > 3 ? ` and ${spans.length - 3} more` : '');
    const text = `${spans.length === 1 ? 'span' : 'spans'} ${ids}: ${reason}`;
    if (this.reasons.length < MAX_REASONS) this.reasons.push(text);
    else this.more++;
  }
  message(): string {
    return this.reasons.join('; ') + (this.more ? `; and ${this.more} more` : '');
  }
}

export async function ingestSpans(auth: AuthContext, spans: OtelSpan[]): Promise<IngestResult> {
  // The same span twice in one export is one span.
  const unique = [...new Map(spans.map((s) => [s.spanId, s])).values()];
  const rejections = new Rejections(new Set(unique.map((s) => s.spanId)));
  const withVersion = unique.filter((s) => versionIdOf(s) !== undefined);
  rejections.add(
    unique.filter((s) => versionIdOf(s) === undefined),
    'no platform.version.id attribute on the span or its resource',
  );

  // A span id seen before changes nothing (exporters retry); another organization's id is refused.
  const owners = await storedSpanOwners(withVersion.map((s) => platformSpanId(s.spanId)));
  const taken = withVersion.filter(
    (s) => owners.has(platformSpanId(s.spanId)) && owners.get(platformSpanId(s.spanId)) !== auth.organizationId,
  );
  rejections.add(taken, 'this span id is already used by another span');
  const fresh = withVersion.filter((s) => !owners.has(platformSpanId(s.spanId)));

  const traces = groupByTrace(fresh);
  const links = await getTraceLinks(auth.organizationId, [...traces.keys()]);
  const placer = new Placer(auth, rejections);

  // Traces of one session in order (their turns take indexes in that order); sessions in parallel.
  const bySession = new Map<string, [string, OtelSpan[]][]>();
  for (const [traceId, traceSpans] of traces) {
    const link = links.get(traceId);
    const group = link ? `id:${link.sessionId}` : `key:${traceSessionKey(traceSpans)?.key ?? `trace:${traceId}`}`;
    bySession.set(group, [...(bySession.get(group) ?? []), [traceId, traceSpans]]);
  }
  const placed: { span: OtelSpan; link: TraceLink; session: Session }[] = [];
  const placedTraces = new Map<string, Place>();
  await forEachLimited([...bySession.values()], SESSION_CONCURRENCY, async (group) => {
    group.sort(([, a], [, b]) => compareBigint(startOf(a), startOf(b)));
    // New traces of one session: their turns in one transaction (the common case, fast)…
    const fresh = group.filter(([traceId]) => !links.has(traceId));
    const together = fresh.length > 1 ? await placer.placeNewTraces(fresh) : new Map<string, Place | undefined>();
    // …the rest (known traces, or a guard found taken), one at a time.
    for (const [traceId, traceSpans] of group) {
      const where = together.has(traceId)
        ? together.get(traceId)
        : await placer.placeTrace(traceId, traceSpans, links.get(traceId));
      if (where) {
        placed.push(...traceSpans.map((span) => ({ span, ...where })));
        placedTraces.set(traceId, where);
      }
    }
  });

  // Spans held for these traces (read after the turns exist: one held meanwhile is seen here, or its
  // export sees the turn): placed with them, then released.
  const held = await placer.heldSpans(placedTraces, traces);
  for (const h of held) placed.push(...h.spans.map((span) => ({ span, ...h.where })));
  await writeSpans(placed);
  // every held span of the trace, those this export carried itself too (it held them, then found the turn)
  await forEachLimited(held, 4, (h) => unparkSpans(auth.organizationId, h.traceId, h.heldIds));
  await markTestsTraced([...new Map(placed.map((p) => [p.session.id, p.session])).values()]);
  return {
    acceptedSpans: unique.length - rejections.count,
    rejectedSpans: rejections.count,
    errorMessage: rejections.message(),
  };
}

function startOf(spans: OtelSpan[]): bigint {
  // biome-ignore lint/complexity/useMathMinMax: nanoseconds are bigints, which Math.min does not take.
  return spans.reduce((min, s) => (s.startNs < min ? s.startNs : min), spans[0]!.startNs);
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Place = { link: TraceLink; session: Session };

/** Resolves sessions (cached per export) and turns of traces. */
class Placer {
  private readonly sessions = new Map<string, Promise<Session>>();
  private readonly sessionsById = new Map<string, Promise<Session | undefined>>();

  constructor(
    private readonly auth: AuthContext,
    private readonly rejections: Rejections,
  ) {}

  /**
   * New traces of one session key: the session once, then their turns and links in as few
   * transactions as fit (50 traces each). The map holds the traces it placed (undefined: rejected);
   * a trace missing from it (a link found taken) is left to placeTrace.
   */
  async placeNewTraces(traces: [string, OtelSpan[]][]): Promise<Map<string, Place | undefined>> {
    const out = new Map<string, Place | undefined>();
    const key = traceSessionKey(traces[0]![1]);
    if (!key || key.key.length > CUSTOM_ID_MAX) return out;
    let session: Session;
    try {
      session = await this.sessionFor(key.key, key.from);
    } catch (error) {
      if (!(error instanceof DomainError && error.isClientFault)) throw error;
      for (const [traceId, spans] of traces) {
        this.rejections.add(spans, otelWording(error.message));
        out.set(traceId, undefined);
      }
      return out;
    }
    for (let i = 0; i < traces.length; i += 50) {
      const chunk = traces.slice(i, i + 50);
      const now = clock.now().toISOString();
      try {
        const turns = await appendTurns(
          session,
          chunk.map(([, spans]) => draftFor(fieldsOfTrace(spans))),
          { guard: (made) => made.map((t, k) => traceLinkPut(this.auth.organizationId, linkOf(chunk[k]![0], t), now)) },
        );
        chunk.forEach(([traceId], k) => {
          out.set(traceId, { link: linkOf(traceId, turns[k]!), session });
        });
      } catch (error) {
        if (error instanceof GuardTakenError) return out;
        throw error;
      }
    }
    return out;
  }

  /** The trace's session and turn (created when new); undefined when its spans are rejected. */
  async placeTrace(
    traceId: string,
    spans: OtelSpan[],
    link: TraceLink | undefined,
  ): Promise<{ link: TraceLink; session: Session } | undefined> {
    const fields = fieldsOfTrace(spans);
    try {
      if (!link) {
        const key = traceSessionKey(spans);
        if (!key) {
          if (!(await this.hold(traceId, spans))) return undefined;
          // Its turn may have been made meanwhile (its export did not see these spans held): join it.
          link = (await getTraceLinks(this.auth.organizationId, [traceId])).get(traceId);
          if (!link) return undefined;
          return this.placeTrace(traceId, spans, link);
        }
        if (key.key.length > CUSTOM_ID_MAX) {
          this.rejections.add(
            spans,
            `the session id (${key.key.slice(0, 20)}…) must be at most ${CUSTOM_ID_MAX} characters`,
          );
          return undefined;
        }
        const session = await this.sessionFor(key.key, key.from);
        const created = await this.createTurn(session, traceId, fields);
        if (created) return { link: created, session };
        // Another export created this trace's turn meanwhile: join it.
        link = (await getTraceLinks(this.auth.organizationId, [traceId])).get(traceId);
        if (!link) throw new Error(`trace ${traceId} has no link after its guard failed`);
      }
      const session = await this.sessionById(link.sessionId);
      if (!session) {
        this.rejections.add(spans, `the session of trace ${traceId} was deleted`);
        return undefined;
      }
      if (fields) await this.fillTurn(session, link, fields);
      return { link, session };
    } catch (error) {
      if (error instanceof DomainError && error.isClientFault) {
        this.rejections.add(spans, otelWording(error.message));
        return undefined;
      }
      throw error;
    }
  }

  /**
   * Holds the spans of a new trace that name no session (accepted, with a warning); false when one
   * is too large to hold (then they are rejected, as before holding existed).
   */
  private async hold(traceId: string, spans: OtelSpan[]): Promise<boolean> {
    const encoded = spans.map((s) => ({ spanId: s.spanId, span: encodeSpan(s) }));
    if (encoded.some((e) => Buffer.byteLength(e.span) > MAX_HELD_SPAN_BYTES)) {
      this.rejections.add(spans, `${NO_SESSION_KEY} (a span this large is not held until one does)`);
      return false;
    }
    await parkSpans(this.auth.organizationId, traceId, encoded, clock.now());
    this.rejections.note(
      spans,
      `${NO_SESSION_KEY}: held for up to ${PARKED_SECONDS / 3600} hours until a span of trace ${traceId} names its session`,
    );
    return true;
  }

  /**
   * The held spans of the traces placed by this export (those it already carries left out); a held
   * root fills in its trace's turn.
   */
  async heldSpans(
    placedTraces: Map<string, Place>,
    traces: Map<string, OtelSpan[]>,
  ): Promise<{ traceId: string; where: Place; spans: OtelSpan[]; heldIds: string[] }[]> {
    if (placedTraces.size === 0) return [];
    const waiting = await tracesWithParkedSpans(this.auth.organizationId, [...placedTraces.keys()]);
    const out: { traceId: string; where: Place; spans: OtelSpan[]; heldIds: string[] }[] = [];
    for (const traceId of waiting) {
      const where = placedTraces.get(traceId)!;
      const carried = new Set((traces.get(traceId) ?? []).map((s) => s.spanId));
      const held = await parkedSpans(this.auth.organizationId, traceId);
      const spans = [...held.values()].map(decodeSpan).filter((s) => !carried.has(s.spanId));
      const all = [...(traces.get(traceId) ?? []), ...spans];
      const heldRoot =
        spans.some((s) => s.parentSpanId === null) && !(traces.get(traceId) ?? []).some((s) => s.parentSpanId === null);
      const fields = heldRoot ? fieldsOfTrace(all) : undefined;
      if (fields) await this.fillTurn(where.session, where.link, fields);
      out.push({ traceId, where, spans, heldIds: [...held.keys()] });
    }
    return out;
  }

  /** The live session of a customId: the one ingestion created, else the newest one made through the API, else a new one. */
  private sessionFor(customId: string, from: OtelSpan): Promise<Session> {
    let found = this.sessions.get(customId);
    if (!found) {
      found = this.resolveSession(customId, versionIdOf(from)!, testCaseIdOf(from));
      this.sessions.set(customId, found);
    }
    return found;
  }

  private async resolveSession(customId: string, versionId: string, testCaseId: string | undefined): Promise<Session> {
    const orgId = this.auth.organizationId;
    for (let attempt = 1; ; attempt++) {
      const claimed = await getSessionClaim(orgId, customId);
      if (claimed) {
        const session = await this.sessionById(claimed, true);
        if (session) return session;
      }
      const ids = await sessionIdsByCustomId(orgId, customId);
      const existing = (
        await batchGet(
          ids.map((id) => keys.session(id)),
          true,
        )
      )
        .map((i) => toRecord<Session>(i))
        .filter((s) => s.organizationId === orgId && !s.deletedAt)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      if (existing[0]) return existing[0];
      try {
        // The same use case as POST /sessions: production sessions attach to monitors the same way.
        return await createSession(
          this.auth,
          { versionId, testCaseId: testCaseId ?? null, customId },
          { guard: (s) => sessionClaimPut(orgId, customId, s.id, claimed) },
        );
      } catch (error) {
        if (!(error instanceof GuardTakenError) || attempt >= 3) throw error;
      }
    }
  }

  private sessionById(id: string, fresh = false): Promise<Session | undefined> {
    let found = fresh ? undefined : this.sessionsById.get(id);
    if (!found) {
      found = getSessionWithInternals(id).then((s) =>
        s && s.organizationId === this.auth.organizationId && !s.deletedAt
          ? toRecord<Session>(s as unknown as Record<string, unknown>)
          : undefined,
      );
      this.sessionsById.set(id, found);
    }
    return found;
  }

  /** The trace's turn and link in one transaction; undefined when the link exists already. */
  private async createTurn(
    session: Session,
    traceId: string,
    fields: TurnFields | undefined,
  ): Promise<TraceLink | undefined> {
    try {
      const [turn] = await appendTurns(session, [draftFor(fields)], {
        guard: ([t]) => [traceLinkPut(this.auth.organizationId, linkOf(traceId, t!), clock.now().toISOString())],
      });
      return linkOf(traceId, turn!);
    } catch (error) {
      if (error instanceof GuardTakenError) return undefined;
      throw error;
    }
  }

  /** The root span arrived after the turn was made: its texts, usage and latency fill the turn in. */
  private async fillTurn(session: Session, link: TraceLink, fields: TurnFields): Promise<void> {
    const item = await getTurnItem(link.sessionId, link.turnIndex);
    if (!item) return;
    const turn = toRecord<Turn>(item);
    const updated = await changeTurn(turn, {
      input: clip(fields.input),
      output: fields.output === null ? null : clip(fields.output),
      usage: fields.usage,
      latencyMs: fields.latencyMs,
    });
    await sessionLifecycle.turnsAdded(session, [updated]);
  }
}

/** A span as held: JSON, its nanosecond times (the only bigints) as decimal strings. */
export function encodeSpan(span: OtelSpan): string {
  return JSON.stringify(span, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export function decodeSpan(text: string): OtelSpan {
  const raw = JSON.parse(text) as OtelSpan & { startNs: string; endNs: string; events: { timeNs: string }[] };
  return {
    ...raw,
    startNs: BigInt(raw.startNs),
    endNs: BigInt(raw.endNs),
    events: raw.events.map((e) => ({ ...e, timeNs: BigInt(e.timeNs) })) as OtelSpan['events'],
  };
}

/** The turn fields of a trace when its root is among these spans. */
function fieldsOfTrace(spans: OtelSpan[]): TurnFields | undefined {
  const root = rootOf(spans);
  return root ? turnFieldsOf(root, spans) : undefined;
}

/** A new turn: the root's fields, or empty texts until the root arrives. */
function draftFor(fields: TurnFields | undefined) {
  return draftOf({
    input: clip(fields?.input ?? ''),
    output: fields?.output === undefined || fields.output === null ? null : clip(fields.output),
    usage: fields?.usage,
    latencyMs: fields?.latencyMs ?? null,
  });
}

function linkOf(traceId: string, turn: Turn): TraceLink {
  return { traceId, sessionId: turn.sessionId, inferenceResultId: turn.id, turnIndex: turn.index };
}

/** Turn texts keep their limit (250,000 characters); longer ones are cut. */
function clip(text: string): string {
  return text.length > MAX_TURN_TEXT ? text.slice(0, MAX_TURN_TEXT) : text;
}

/** Messages of the session use case, in the attribute names a span carries. */
function otelWording(message: string): string {
  return message.replace(/^versionId\b/, 'platform.version.id').replace(/^testCaseId\b/, 'platform.test_case.id');
}

/** Writes the placed spans, each only if new (one stored meanwhile by a concurrent export is left as it is). */
async function writeSpans(placed: { span: OtelSpan; link: TraceLink; session: Session }[]): Promise<void> {
  const now = clock.now().toISOString();
  const records: Span[] = placed.map(({ span, link, session }) => ({
    ...spanFieldsOf(span),
    organizationId: session.organizationId,
    sessionId: session.id,
    inferenceResultId: link.inferenceResultId,
    description: null,
    createdAt: now,
  }));
  const chunks: Span[][] = [];
  for (let i = 0; i < records.length; i += SPAN_CHUNK) chunks.push(records.slice(i, i + SPAN_CHUNK));
  await forEachLimited(chunks, 4, async (chunk) => {
    const prepared = await offloadItems(
      chunk.map((span) => ({
        item: spanItem(span, span.startTime ?? span.createdAt),
        // Fresh object names: a span written meanwhile by a concurrent export keeps its own.
        target: { orgId: span.organizationId, kind: SPAN_KIND, id: span.id, fields: SPAN_OFFLOADABLE, fresh: true },
      })),
      { itemBudget: SPAN_BUDGET_BYTES },
    );
    let left: Set<string>;
    try {
      left = await putNewSpanItems(prepared.map((p) => p.item));
    } catch (error) {
      await discardObjects(prepared.flatMap((p) => p.written));
      throw error;
    }
    await discardObjects(prepared.filter((p) => left.has(String(p.item.id))).flatMap((p) => p.written));
  });
}

async function markTestsTraced(sessions: Session[]): Promise<void> {
  for (const session of sessions) {
    const flag = testActivityUpdate(session, '_hasTraces');
    if (flag.length) await transact(flag).catch(() => undefined);
  }
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}
