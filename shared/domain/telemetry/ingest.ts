import type { AuthContext } from '../../auth/context.js';
import { type TraceLink, getTraceLinks, storedSpanOwners, unparkSpans } from '../../db/telemetry.js';
import { groupByTrace, platformSpanId, traceSessionKey, versionIdOf } from './mapping.js';
import type { OtelSpan } from './otlp.js';
import { type Place, Placer } from './placer.js';
import { Rejections } from './rejections.js';
import { forEachLimited, markTestsTraced, writeSpans } from './span-writes.js';
import type { Session } from '../../schemas/sessions.js';

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

const SESSION_CONCURRENCY = 16;

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
