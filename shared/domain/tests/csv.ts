import { CsvError as ParseError, Parser } from 'csv-parse';

/**
 * CSV records from a stream of chunks, parsed by csv-parse (docs/decisions.md, "Parsers from
 * libraries"). This module only adapts it: the options that give the import's dialect, the line on
 * which each record starts (the header is line 1), and the import's own error texts.
 */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** The texts uploads have always been refused with, by csv-parse error code. */
const MESSAGES: Partial<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote',
};

/** A line break in a value: CRLF, CR or LF (only a quoted value can hold one). */
const BREAK = /\r\n|\r|\n/g;

function breaksIn(fields: string[]): number {
  let n = 0;
  for (const field of fields) if (field.includes('\n') || field.includes('\r')) n += field.match(BREAK)!.length;
  return n;
}

/**
 * Reads CSV from chunks as they arrive (strings, or bytes of UTF-8 that may split a character),
 * yielding each record with the line it starts on. A record that does not parse throws CsvError
 * naming the line its record starts on, after every record before it has been yielded; bytes
 * that are not UTF-8 throw the TextDecoder's TypeError.
 */
export async function* readCsv(
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): AsyncGenerator<CsvRecord> {
  const parsed: CsvRecord[] = [];
  // Lines are counted here, not taken from csv-parse's info.lines, which counts a CRLF inside a
  // quoted value as two lines (7.0.3). A record spans one line more than the breaks in its values;
  // the empty lines skipped before it are csv-parse's empty_lines count.
  let next = 1; // the line the text after the last record starts on
  let emptyBefore = 0; // empty lines skipped before that line
  const parser = new Parser({
    bom: true,
    // Every line end is accepted in any mix; csv-parse would otherwise keep only the first it sees.
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_empty_lines: true,
    // A row with the wrong field count is the import's to report (it names the expected count).
    relax_column_count: true,
    on_record: (fields: string[], info) => {
      const line = next + info.empty_lines - emptyBefore;
      parsed.push({ line, fields });
      next = line + breaksIn(fields) + 1;
      emptyBefore = info.empty_lines;
      return null; // kept here, in order, rather than queued on the stream's readable side
    },
  });
  // Errors are taken from the write and end callbacks; without a listener the event would throw.
  parser.on('error', () => undefined);
  const failure = (error: Error): Error => {
    if (!(error instanceof ParseError)) return error;
    const empty = typeof error.empty_lines === 'number' ? error.empty_lines : emptyBefore;
    const message = MESSAGES[error.code] ?? `the file is not valid CSV (${error.code})`;
    return new CsvError(next + empty - emptyBefore, message);
  };
  // csv-parse gets the bytes as they came; the decoder only checks that they are UTF-8.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue;
      if (typeof chunk !== 'string') decoder.decode(chunk, { stream: true });
      const error = await new Promise<Error | null | undefined>((resolve) => parser.write(chunk, resolve));
      yield* parsed.splice(0);
      if (error) throw failure(error);
    }
    decoder.decode(); // a file cut inside a character
    const error = await new Promise<Error | null | undefined>((resolve) => parser.end(resolve));
    yield* parsed.splice(0);
    if (error) throw failure(error);
  } finally {
    parser.destroy();
  }
}

/** Parses a whole CSV text (tests, small files). */
export async function parseCsv(text: string): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  for await (const record of readCsv([text])) records.push(record);
  return records;
}
