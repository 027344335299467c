import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvError, readCsv, type CsvRecord } from '../../shared/domain/tests/csv.js';
import { readCases } from '../../shared/domain/tests/test-import.js';

/**
 * The same file must read the same in every chunking: S3 hands the import bytes in chunks of its
 * choosing, so a chunk may end between the CR and LF of a line end, inside a doubled quote, inside
 * the BOM or inside a multi-byte character. Each file below is read whole, split at every byte,
 * split at every pair of bytes (small files), byte by byte and one character per string chunk,
 * and every reading must give the expected records, lines and error.
 */

interface Outcome {
  records: CsvRecord[];
  error: { line: number; message: string } | null;
}

/** Chunks as an S3 body gives them: asynchronously, one at a time. */
async function* feed(chunks: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

async function read(chunks: (string | Uint8Array)[]): Promise<Outcome> {
  const records: CsvRecord[] = [];
  try {
    for await (const record of readCsv(feed(chunks))) records.push(record);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    return { records, error: { line: error.line, message: error.message } };
  }
  return { records, error: null };
}

/** Every chunking of the file's UTF-8 bytes named in the header comment, with a name for failures. */
function* chunkings(text: string, { pairs }: { pairs: boolean }): Generator<[string, (string | Uint8Array)[]]> {
  const bytes = Buffer.from(text, 'utf8');
  const n = bytes.length;
  yield ['whole', [bytes]];
  for (let i = 1; i < n; i++) yield [`bytes split at ${i}`, [bytes.subarray(0, i), bytes.subarray(i)]];
  if (pairs) {
    for (let i = 1; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        yield [`bytes split at ${i} and ${j}`, [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]];
      }
    }
  }
  yield ['byte by byte', Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))];
  const chars = [...text];
  yield ['one character per string', chars];
  for (let i = 1; i < chars.length; i++) {
    yield [`string split at character ${i}`, [chars.slice(0, i).join(''), chars.slice(i).join('')]];
  }
}

async function expectEveryChunking(text: string, expected: Outcome, pairs = false): Promise<number> {
  let count = 0;
  for (const [name, chunks] of chunkings(text, { pairs })) {
    expect(await read(chunks), name).toEqual(expected);
    count++;
  }
  return count;
}

const rec = (line: number, ...fields: string[]): CsvRecord => ({ line, fields });

describe('CSV records and lines are the same in every chunking', () => {
  it('CRLF with CRLF inside quoted cells, a BOM, doubled quotes, empty fields and lines, multi-byte text', async () => {
    const text = [
      '\ufeffinput,expected_output\r\n', // 1
      '"a ""quoted"" cell","two\r\n', // 2
      'lines"\r\n', // 3
      '\r\n', // 4: empty, skipped
      ',empty first\r\n', // 5
      '"日本 😀","é\r\n', // 6
      '\r\n', // 7: inside the quotes
      'three"\r\n', // 8
      'last,\r\n', // 9
    ].join('');
    const expected = {
      records: [
        rec(1, 'input', 'expected_output'),
        rec(2, 'a "quoted" cell', 'two\r\nlines'),
        rec(5, '', 'empty first'),
        rec(6, '日本 😀', 'é\r\n\r\nthree'),
        rec(9, 'last', ''),
      ],
      error: null,
    };
    expect(await expectEveryChunking(text, expected)).toBeGreaterThan(Buffer.byteLength(text));
  });

  it('every pair of split points of a small CRLF file with a quoted CRLF and a BOM', async () => {
    const text = '\ufeffa,b\r\n"x\r\n""y",\r\n\r\nz,"é"';
    const expected = { records: [rec(1, 'a', 'b'), rec(2, 'x\r\n"y', ''), rec(5, 'z', 'é')], error: null };
    const n = Buffer.byteLength(text);
    expect(await expectEveryChunking(text, expected, true)).toBeGreaterThan(((n - 1) * (n - 2)) / 2);
  });

  it('LF, quoted LF, a cell of one doubled quote, empty lines and no final line end', async () => {
    const text = 'a,b,c\n"x\ny",,""""\n\n\n1,"2\n",3';
    const records = [rec(1, 'a', 'b', 'c'), rec(2, 'x\ny', '', '"'), rec(6, '1', '2\n', '3')];
    const expected = { records, error: null };
    await expectEveryChunking(text, expected, true);
  });

  it('line ends mixed in one file: CRLF, LF and a lone CR, in and out of quotes', async () => {
    const text = 'a,b\r\nc,d\ne,f\rg,"h\ri"\r\n\n\rj,k\n';
    const records = [rec(1, 'a', 'b'), rec(2, 'c', 'd'), rec(3, 'e', 'f'), rec(4, 'g', 'h\ri'), rec(8, 'j', 'k')];
    const expected = { records, error: null };
    await expectEveryChunking(text, expected, true);
  });

  it('a quote that is never closed names the line its record starts on, after the records before it', async () => {
    const text = 'h1,h2\r\n"ok\r\nok",x\r\n\r\nz,"never closed\r\nstill open\r\n';
    await expectEveryChunking(text, {
      records: [rec(1, 'h1', 'h2'), rec(2, 'ok\r\nok', 'x')],
      error: { line: 5, message: 'a quoted field is not closed' },
    });
  });

  it('text after a closing quote, and a quote inside an unquoted field, name their record line', async () => {
    await expectEveryChunking('h1,h2\n\n"multi\r\nline"x,y\n', {
      records: [rec(1, 'h1', 'h2')],
      error: { line: 3, message: 'text after a closing quote' },
    });
    await expectEveryChunking('h1,h2\r\n"a\r\nb",c\r\nab"c,d\r\n', {
      records: [rec(1, 'h1', 'h2'), rec(2, 'a\r\nb', 'c')],
      error: { line: 4, message: 'a quote inside an unquoted field' },
    });
  });

  it('an empty file and a file of empty lines have no record', async () => {
    expect(await read([])).toEqual({ records: [], error: null });
    await expectEveryChunking('\ufeff\r\n\n\r\n', { records: [], error: null });
  });
});

describe('the import names the same line in every chunking', () => {
  async function importError(chunks: (string | Uint8Array)[]): Promise<string> {
    try {
      await readCases('QUALITY', feed(chunks));
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  }

  it.each([
    // The wrong field count comes first, though the unclosed quote after it is found in the same chunk.
    ['input,expected_output\r\n"q\r\n1",a\r\n"q2","a2","extra"\r\n"x\r\n', 'line 4: expected 2 fields, found 3'],
    ['input,expected_output\r\n"q\r\n1",a\r\n\r\n"q2\r\n', 'line 5: a quoted field is not closed'],
    ['\ufeffinput,expected_output\n"multi\r\nline", \n', 'line 2: expected_output is empty'],
    ['input,expected_output\r\n"é\r\nü",a\r\n"b"c,d\r\n', 'line 4: text after a closing quote'],
  ])('%j fails with %s', async (text, message) => {
    for (const [name, chunks] of chunkings(text, { pairs: false })) {
      expect(await importError(chunks), name).toBe(message);
    }
  });

  it('bytes that are not UTF-8, wherever the chunks split them, and a file cut inside a character', async () => {
    const bad = Buffer.concat([Buffer.from('input,expected_output\na,'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]);
    for (let i = 1; i < bad.length; i++) {
      const chunks = [bad.subarray(0, i), bad.subarray(i)];
      expect(await importError(chunks), `split at ${i}`).toBe('the file is not valid UTF-8');
    }
    const cut = Buffer.from('input,expected_output\na,é').subarray(0, -1);
    expect(await importError([cut])).toBe('the file is not valid UTF-8');
  });
});

describe('generated files', () => {
  /** Characters that stress quoting, line ends and UTF-8 (two-, three- and four-byte). */
  const value = fc.string({ unit: fc.constantFrom('a', ' ', ',', '"', '\r', '\n', 'é', '日', '😀'), maxLength: 6 });
  const lineEnd = fc.constantFrom('\r\n', '\n', '\r');
  const file = fc.record({
    bom: fc.boolean(),
    rows: fc.array(
      fc.record({
        fields: fc.array(value, { minLength: 1, maxLength: 4 }),
        quoteAll: fc.boolean(),
        end: lineEnd,
        emptyAfter: fc.nat(2),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    finalEnd: fc.boolean(),
  });
  type FileSpec = typeof file extends fc.Arbitrary<infer T> ? T : never;
  const chunkSizes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 });

  /** Writes the rows out and works out, by construction, the line each one starts on. */
  function build({ bom, rows, finalEnd }: FileSpec): { text: string; expected: CsvRecord[] } {
    let text = bom ? '\ufeff' : '';
    let line = 1;
    const expected: CsvRecord[] = [];
    rows.forEach((row, i) => {
      // A lone empty value unquoted would be an empty line, which is skipped.
      const quoted = (f: string) => row.quoteAll || /[",\r\n]/.test(f) || row.fields.length === 1;
      const cells = row.fields.map((f) => (quoted(f) ? `"${f.replace(/"/g, '""')}"` : f));
      const body = cells.join(',');
      expected.push({ line, fields: row.fields });
      line += (body.match(/\r\n|\r|\n/g) ?? []).length;
      text += body;
      if (i === rows.length - 1 && !finalEnd) return;
      text += row.end;
      line++;
      // An LF after a lone CR would make one CRLF line end of the two, so empty lines repeat the end.
      for (let k = 0; k < row.emptyAfter; k++) {
        text += row.end;
        line++;
      }
    });
    return { text, expected };
  }

  it('records and lines are as written, in any chunk sizes over the bytes', async () => {
    await fc.assert(
      fc.asyncProperty(file, chunkSizes, async (spec, sizes) => {
        const { text, expected } = build(spec);
        const bytes = Buffer.from(text, 'utf8');
        const chunks: Uint8Array[] = [];
        for (let at = 0, k = 0; at < bytes.length; k++) {
          const size = sizes[k % sizes.length]!;
          chunks.push(bytes.subarray(at, at + size));
          at += size;
        }
        expect(await read(chunks)).toEqual({ records: expected, error: null });
      }),
      { numRuns: 300 },
    );
  });
});
