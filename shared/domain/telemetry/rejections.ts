/** What an export's spans were refused for (OTLP's partialSuccess): a count and a few reasons. */
import type { OtelSpan } from './otlp.js';

const MAX_REASONS = 5;

export class Rejections {
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
