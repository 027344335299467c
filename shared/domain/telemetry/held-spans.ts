/** The text form of a span held until its trace's session is known. */
import type { OtelSpan } from './otlp.js';

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
