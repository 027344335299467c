/**
 * The API's messages in evalctl's terms: a message that names a body field or query parameter
 * evalctl sets names the flag it came from instead ("versionId ver_x does not name an existing
 * version" → "--version ver_x does not name an existing version"), pure. One table says which flag
 * sets which field; a few messages that tell an API caller what to send are rewritten whole.
 */

/** The API fields evalctl sets (POST /runs's body, the comparison's and JUnit's query), by the flag that sets each. */
export const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  versionId: '--version',
  testId: '--test',
  metricIds: '--metric',
  repetitions: '--repetitions',
  threshold: '--threshold',
  baseRunId: '--baseline',
};

/** Whole messages whose advice is about the API's body, said for the command line. */
const REWRITES: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [
    /^metricIds: nothing to score: ([^;]*)(?:;.*)?$/s,
    (m) => `nothing to score: pass --metric or link metrics to the test's specification (${m[1]!.trim()})`,
  ],
];

const FIELD_AT_START = new RegExp(`^(${Object.keys(FLAG_OF_FIELD).join('|')})(?:\\[(\\d+)\\])?(?=[:\\s.]|$)`);

/** The message with the fields evalctl sets named by their flags; any other message as it came. */
export function inCliTerms(message: string): string {
  for (const [pattern, rewrite] of REWRITES) {
    const m = pattern.exec(message);
    if (m) return rewrite(m);
  }
  return message
    .replace(FIELD_AT_START, (_, field: string, index?: string) =>
      index === undefined ? FLAG_OF_FIELD[field]! : `${FLAG_OF_FIELD[field]} #${Number(index) + 1}`,
    )
    .replace(/\bgive metricIds\b/g, 'pass --metric');
}
