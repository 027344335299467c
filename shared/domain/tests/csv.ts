/**
 * A streaming RFC 4180 CSV reader: quoted fields, doubled quotes, commas and newlines inside
 * quotes, CRLF or LF line ends, a UTF-8 BOM. Feed it chunks; it yields each record with the line
 * number on which the record starts (the header is line 1).
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

export class CsvReader {
  private field = '';
  private fields: string[] = [];
  private inQuotes = false;
  private quoteSeen = false; // the previous char was a quote inside a quoted field
  private line = 1;
  private recordLine = 1;
  private started = false;
  private fieldStarted = false;
  private bomChecked = false;
  private pendingCR = false;
  private closedQuote = false;

  /** Consumes a chunk; returns the records it completed. */
  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let text = chunk;
    if (!this.bomChecked && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.bomChecked = true;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (this.pendingCR) {
        this.pendingCR = false;
        if (c === '\n') continue; // CRLF: the CR already ended the record
      }
      if (this.inQuotes) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (c === '"') {
            this.field += '"';
            continue;
          }
          this.inQuotes = false; // closing quote; fall through to handle c outside quotes
          this.closedQuote = true;
        } else if (c === '"') {
          this.quoteSeen = true;
          continue;
        } else {
          if (c === '\n') this.line++;
          if (c === '\r') {
            this.line++;
            if (text[i + 1] === '\n') {
              this.field += '\r\n';
              i++;
              continue;
            }
          }
          this.field += c;
          continue;
        }
      }
      if (c === '"') {
        if (this.fieldStarted && this.field.length > 0) throw new CsvError(this.line, 'a quote inside an unquoted field');
        this.inQuotes = true;
        this.started = true;
        this.fieldStarted = true;
        continue;
      }
      if (c === ',') {
        this.closedQuote = false;
        this.fields.push(this.field);
        this.field = '';
        this.started = true;
        this.fieldStarted = false;
        continue;
      }
      if (c === '\n' || c === '\r') {
        if (c === '\r') this.pendingCR = true;
        this.endRecord(out);
        this.line++;
        this.recordLine = this.line;
        continue;
      }
      if (this.closedQuote) throw new CsvError(this.line, 'text after a closing quote');
      this.field += c;
      this.started = true;
      this.fieldStarted = true;
    }
    return out;
  }

  /** Ends the input; returns the last record, if the file did not end with a newline. */
  end(): CsvRecord[] {
    if (this.inQuotes && !this.quoteSeen) throw new CsvError(this.recordLine, 'a quoted field is not closed');
    if (this.quoteSeen) this.closedQuote = true;
    this.inQuotes = false;
    this.quoteSeen = false;
    const out: CsvRecord[] = [];
    this.endRecord(out);
    return out;
  }

  private endRecord(out: CsvRecord[]): void {
    if (this.started || this.field.length > 0 || this.fields.length > 0) {
      this.fields.push(this.field);
      out.push({ line: this.recordLine, fields: this.fields });
    }
    this.fields = [];
    this.field = '';
    this.started = false;
    this.fieldStarted = false;
    this.closedQuote = false;
  }
}

/** Parses a whole CSV text (tests, small files). */
export function parseCsv(text: string): CsvRecord[] {
  const reader = new CsvReader();
  return [...reader.push(text), ...reader.end()];
}
