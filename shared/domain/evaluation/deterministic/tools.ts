/** Tool calls: the tools the agent used against the tools expected. */
import { listOf, shortJson } from '../reason-text.js';
import type { Finding } from './result.js';

/** Tool names compare trimmed, case-insensitive, with spaces and hyphens read as underscores. */
export function normaliseToolName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

export function toolCorrectness(used: string[], expected: string[]): number {
  return toolFinding(used, expected).score;
}

export function toolFinding(used: string[], expected: string[]): Finding {
  /** The normalised names of a list, each with its first spelling. */
  const byName = (list: string[]) => {
    const m = new Map<string, string>();
    for (const t of list) if (!m.has(normaliseToolName(t))) m.set(normaliseToolName(t), t);
    return m;
  };
  const a = byName(used);
  const b = byName(expected);
  const names = (list: string[]) =>
    listOf(
      list.map((t) => shortJson(t)),
      5,
    );
  const missing = [...b].filter(([k]) => !a.has(k)).map(([, t]) => t);
  const unexpected = [...a].filter(([k]) => !b.has(k)).map(([, t]) => t);
  if (missing.length === 0 && unexpected.length === 0) {
    return {
      score: 1,
      detail:
        b.size === 0 ? 'no tool expected and none used' : `used exactly the expected tools: ${names([...b.values()])}`,
    };
  }
  const parts = [];
  if (missing.length)
    parts.push(
      `missing tool${missing.length > 1 ? 's' : ''} ${names(missing)}${a.size === 0 ? ' (no tool was used)' : ''}`,
    );
  if (unexpected.length) parts.push(`unexpected tool${unexpected.length > 1 ? 's' : ''} ${names(unexpected)}`);
  return { score: 0, detail: parts.join('; ') };
}
