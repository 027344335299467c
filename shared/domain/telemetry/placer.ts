/**
 * Where the traces of an export go: their session (found by id or custom id, or created once) and
 * their turn (created once per trace, guarded by its link; filled when the root span arrives), and
 * the spans held while no span of a new trace names its session.
 */
import type { AuthContext } from '../../auth/context.js';
import { GuardTakenError } from '../../db/errors.js';
import { keys } from '../../db/keys.js';
import { batchGet } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import { getSessionWithInternals, getTurnItem, sessionIdsByCustomId } from '../../db/sessions.js';
import {
  PARKED_SECONDS,
  type TraceLink,
  getSessionClaim,
  getTraceLinks,
  parkSpans,
  parkedSpans,
  sessionClaimPut,
  traceLinkPut,
  tracesWithParkedSpans,
} from '../../db/telemetry.js';
import { DomainError } from '../../errors.js';
import { MAX_TURN_TEXT } from '../../schemas/sessions.js';
import { clock } from '../common/clock.js';
import { sessionLifecycle } from '../sessions/session-lifecycle.js';
import { createSession } from '../sessions/sessions.js';
import { appendTurns, changeTurn, draftOf } from '../sessions/turns.js';
import { decodeSpan, encodeSpan } from './held-spans.js';
import { type TurnFields, rootOf, testCaseIdOf, traceSessionKey, turnFieldsOf, versionIdOf } from './mapping.js';
import type { OtelSpan } from './otlp.js';
import type { Rejections } from './rejections.js';
import type { Session, Turn } from '../../schemas/sessions.js';

const CUSTOM_ID_MAX = 200;

/** A held span is one item: larger ones (huge attributes) are rejected instead. */
const MAX_HELD_SPAN_BYTES = 350_000;

const NO_SESSION_KEY =
  'no session.id, gen_ai.conversation.id or thread_id attribute on the span, its resource or another span of its trace';

export type Place = { link: TraceLink; session: Session };

/** Resolves sessions (cached per export) and turns of traces. */
export class Placer {
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
