/** The placed spans written (each only if new), and the tests they belong to marked as traced. */
import { transact } from '../../db/catalog.js';
import { discardObjects, offloadItems } from '../../db/offload.js';
import { spanItem } from '../../db/sessions.js';
import { type TraceLink, putNewSpanItems } from '../../db/telemetry.js';
import { clock } from '../common/clock.js';
import { testActivityUpdate } from '../sessions/sessions.js';
import { SPAN_BUDGET_BYTES, SPAN_KIND, SPAN_OFFLOADABLE } from '../sessions/spans.js';
import { spanFieldsOf } from './mapping.js';
import type { OtelSpan } from './otlp.js';
import type { Session, Span } from '../../schemas/sessions.js';

const SPAN_CHUNK = 100;

/** Writes the placed spans, each only if new (one stored meanwhile by a concurrent export is left as it is). */
export async function writeSpans(placed: { span: OtelSpan; link: TraceLink; session: Session }[]): Promise<void> {
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

export async function markTestsTraced(sessions: Session[]): Promise<void> {
  for (const session of sessions) {
    const flag = testActivityUpdate(session, '_hasTraces');
    if (flag.length) await transact(flag).catch(() => undefined);
  }
}

export async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}
