import { createHash } from 'node:crypto';
import type { FilterTarget } from '../../schemas/monitors.js';

/** hash(monitorId + sessionId) mapped to [0, 100): the same session always gets the same answer. */
export function samplingPoint(monitorId: string, sessionId: string): number {
  const digest = createHash('sha256').update(`${monitorId}${sessionId}`).digest();
  return ((digest.readUInt32BE(0) * 2 ** 21 + (digest.readUInt32BE(4) >>> 11)) / 2 ** 53) * 100;
}

export function isSampled(monitorId: string, sessionId: string, samplingPercentage: number): boolean {
  return samplingPoint(monitorId, sessionId) < samplingPercentage;
}

/** The weight of a sampled session, fixed when it is sampled. */
export function samplingWeight(samplingPercentage: number): number {
  return 100 / samplingPercentage;
}

/** Comma-separated terms, trimmed, case-insensitive; empty terms are ignored. */
export function terms(query: string | null): string[] {
  if (!query) return [];
  return query
    .split(',')
    .map((t) => t.trim().toLocaleLowerCase('en'))
    .filter((t) => t.length > 0);
}

interface TurnText {
  input: string;
  output: string | null;
}

function hits(turns: TurnText[], list: string[], target: FilterTarget): boolean {
  if (list.length === 0) return false;
  return turns.some((t) => {
    const sides = target === 'INPUT' ? [t.input] : target === 'OUTPUT' ? [t.output ?? ''] : [t.input, t.output ?? ''];
    return sides.some((side) => {
      const text = side.toLocaleLowerCase('en');
      return list.some((term) => text.includes(term));
    });
  });
}

/** A session is watched when it passes filterQuery (if set) and is not hit by excludeQuery. */
export function passesFilters(
  monitor: {
    filterQuery: string | null;
    filterTarget: FilterTarget | null;
    excludeQuery: string | null;
    excludeTarget: FilterTarget | null;
  },
  turns: TurnText[],
): boolean {
  const include = terms(monitor.filterQuery);
  if (include.length > 0 && !hits(turns, include, monitor.filterTarget ?? 'EITHER')) return false;
  const exclude = terms(monitor.excludeQuery);
  if (exclude.length > 0 && hits(turns, exclude, monitor.excludeTarget ?? 'EITHER')) return false;
  return true;
}

/** A waiting session's description: its first user turn, cut to 120 characters. */
export function describe(firstInput: string | undefined): string {
  const text = (firstInput ?? '').replace(/\s+/g, ' ').trim();
  return text.length > 120 ? text.slice(0, 120) : text;
}
