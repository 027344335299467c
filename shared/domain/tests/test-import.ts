import type { TestType } from '../evaluation/params.js';
import { CsvError, readCsv, type CsvRecord } from './csv.js';

/** CSV columns per test type. */
export const CSV_COLUMNS: Record<TestType, { required: string[]; optional: string[] }> = {
  QUALITY: { required: ['input', 'expected_output'], optional: [] },
  RED_TEAMING: { required: ['input'], optional: [] },
  SCENARIOS: {
    required: ['goal', 'user_persona'],
    optional: ['tag', 'context', 'scenario', 'stopping_criterias', 'max_iterations'],
  },
};

export const MAX_ROWS = 10_000;

/** A cell holds at most what the same field of POST /testCases takes (shared/schemas/tests.ts). */
const CELL_LIMITS: Record<string, number> = {
  input: 250_000,
  expected_output: 250_000,
  context: 250_000,
  goal: 10_000,
  user_persona: 10_000,
  scenario: 10_000,
  tag: 200,
};

/** Characters as JSON Schema counts them (code points, not UTF-16 units). */
function characters(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** A test case read from a file, before ids and keys. */
export interface CaseDraft {
  index: number;
  input: string | null;
  expectedOutput: string | null;
  context: string | null;
  variant: string | null;
  goal: string | null;
  userPersona: string | null;
  scenario: string | null;
  stoppingCriterias: string[];
  maxIterations: number | null;
}

export class ImportError extends Error {}
/** The file's header does not fit the test's type: known before any case is read, so the request is refused. */
export class HeaderError extends ImportError {}

function checkHeader(type: TestType, header: string[]): string[] {
  const columns = header.map((h) => h.trim().toLowerCase());
  const { required, optional } = CSV_COLUMNS[type];
  const missing = required.filter((c) => !columns.includes(c));
  if (missing.length)
    throw new HeaderError(
      `line 1: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} for a ${type} test`,
    );
  const unknown = columns.filter((c) => !required.includes(c) && !optional.includes(c));
  if (unknown.length)
    throw new HeaderError(
      `line 1: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for a ${type} test (columns: ${[...required, ...optional].join(', ')})`,
    );
  const dup = columns.find((c, i) => columns.indexOf(c) !== i);
  if (dup) throw new HeaderError(`line 1: column ${dup} appears twice`);
  return columns;
}

function draftOf(type: TestType, columns: string[], record: CsvRecord, index: number): CaseDraft {
  if (record.fields.length !== columns.length) {
    throw new ImportError(`line ${record.line}: expected ${columns.length} fields, found ${record.fields.length}`);
  }
  const row = Object.fromEntries(columns.map((c, i) => [c, record.fields[i]!]));
  for (const [column, value] of Object.entries(row)) {
    const limit = CELL_LIMITS[column];
    if (limit !== undefined && value.length > limit && characters(value) > limit) {
      throw new ImportError(`line ${record.line}: ${column} must have at most ${limit} characters`);
    }
  }
  const need = (column: string) => {
    const value = row[column]?.trim();
    if (!value) throw new ImportError(`line ${record.line}: ${column} is empty`);
    return row[column]!;
  };
  const optional = (column: string) => (row[column] !== undefined && row[column]!.trim() !== '' ? row[column]! : null);
  const draft: CaseDraft = {
    index,
    input: null,
    expectedOutput: null,
    context: null,
    variant: null,
    goal: null,
    userPersona: null,
    scenario: null,
    stoppingCriterias: [],
    maxIterations: null,
  };
  if (type === 'QUALITY') {
    draft.input = need('input');
    draft.expectedOutput = need('expected_output');
  } else if (type === 'RED_TEAMING') {
    draft.input = need('input');
  } else {
    draft.goal = need('goal');
    draft.userPersona = need('user_persona');
    draft.variant = optional('tag');
    draft.context = optional('context');
    draft.scenario = optional('scenario');
    const criterias = optional('stopping_criterias');
    draft.stoppingCriterias = criterias
      ? criterias
          .split(/[|;]/)
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    if (draft.stoppingCriterias.length > 50)
      throw new ImportError(`line ${record.line}: stopping_criterias must have at most 50 items`);
    if (draft.stoppingCriterias.some((c) => characters(c) > 2000))
      throw new ImportError(`line ${record.line}: each of stopping_criterias must have at most 2000 characters`);
    const iterations = optional('max_iterations');
    if (iterations !== null) {
      const n = Number(iterations.trim());
      if (!Number.isInteger(n) || n < 1 || n > 100)
        throw new ImportError(`line ${record.line}: max_iterations must be a whole number from 1 to 100`);
      draft.maxIterations = n;
    }
  }
  return draft;
}

/**
 * Reads a whole CSV stream into case drafts, or throws ImportError naming the line and problem.
 * Every row is checked before anything is written, so a bad file leaves nothing behind.
 */
export async function readCases(type: TestType, chunks: AsyncIterable<string | Uint8Array>): Promise<CaseDraft[]> {
  let columns: string[] | undefined;
  const drafts: CaseDraft[] = [];
  try {
    for await (const record of readCsv(chunks)) {
      if (!columns) {
        columns = checkHeader(type, record.fields);
        continue;
      }
      if (drafts.length >= MAX_ROWS)
        throw new ImportError(`line ${record.line}: the file has more than ${MAX_ROWS} rows`);
      drafts.push(draftOf(type, columns, record, drafts.length + 1));
    }
  } catch (error) {
    if (error instanceof CsvError) throw new ImportError(`line ${error.line}: ${error.message}`);
    if (error instanceof TypeError && /encoded|decode/i.test(error.message))
      throw new ImportError('the file is not valid UTF-8');
    throw error;
  }
  if (!columns) throw new ImportError('the file is empty');
  if (drafts.length === 0) throw new ImportError('the file has a header but no rows');
  return drafts;
}
