import { extractText, getDocumentProxy } from 'unpdf';
import { bucketName, readObjectStream } from '../../storage/s3.js';
import { orgPrefix, parseS3Uri } from '../../storage/uri.js';

/**
 * Reading a ground-truth or data-catalog document: text, Markdown, JSON, CSV,
 * HTML (tags stripped) and PDF, up to 20 MB, from the organization's own storage. A document that
 * cannot be read is a `DocumentError` whose message names the file and why.
 */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

export class DocumentError extends Error {}

export type DocumentKind = 'text' | 'markdown' | 'json' | 'csv' | 'html' | 'pdf';

const BY_EXTENSION: Record<string, DocumentKind> = {
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  json: 'json',
  jsonl: 'text',
  csv: 'csv',
  html: 'html',
  htm: 'html',
  pdf: 'pdf',
};

/** The kind of a document: its extension, else its first bytes (`%PDF-`, an HTML tag), else text. */
export function documentKind(name: string, bytes: Uint8Array): DocumentKind {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  if (ext && BY_EXTENSION[ext]) return BY_EXTENSION[ext];
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1').trimStart().toLowerCase();
  if (head.startsWith('%pdf-')) return 'pdf';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  return 'text';
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new DocumentError('it is not UTF-8 text');
  }
}

/** The text of a document's bytes; a `DocumentError` (the reason only) when it cannot be read. */
export async function documentText(name: string, bytes: Uint8Array): Promise<string> {
  const kind = documentKind(name, bytes);
  let text: string;
  if (kind === 'pdf') {
    try {
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      text = (await extractText(pdf, { mergePages: true })).text;
    } catch (error) {
      throw new DocumentError(`it is not a readable PDF (${(error as Error).message})`);
    }
  } else if (kind === 'html') {
    // Loaded by the documents that need it (a lazy module, shipped beside the function's bundle).
    const { htmlToText } = await import('#html-text');
    text = htmlToText(utf8(bytes));
  } else if (kind === 'json') {
    const raw = utf8(bytes);
    try {
      text = JSON.stringify(JSON.parse(raw), null, 2);
    } catch (error) {
      throw new DocumentError(`it is not valid JSON (${(error as Error).message})`);
    }
  } else {
    text = utf8(bytes);
    if (text.includes('\u0000')) throw new DocumentError('it is a binary file, not text');
  }
  if (text.trim() === '') throw new DocumentError(`it holds no text (read as ${kind})`);
  return text;
}

/**
 * Reads the document a test names in `field` from the organization's storage: its text, or a
 * `DocumentError` naming the field, the file and why.
 */
export async function readDocument(orgId: string, field: string, uri: string): Promise<string> {
  const fail = (why: string): never => {
    throw new DocumentError(`${field} ${uri} could not be read: ${why}`);
  };
  const loc = parseS3Uri(uri);
  if (!loc || loc.bucket !== bucketName)
    return fail(`only files in this service's storage (s3://${bucketName}/…) can be read`);
  if (!loc.key.startsWith(orgPrefix(orgId))) return fail("the file is outside the organization's storage");
  const stream = await readObjectStream(loc.key);
  if (!stream) return fail('no such file');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Uint8Array).length;
    if (size > MAX_DOCUMENT_BYTES) {
      stream.destroy();
      return fail(`it is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  try {
    return await documentText(loc.key, Buffer.concat(chunks));
  } catch (error) {
    if (error instanceof DocumentError) return fail(error.message);
    throw error;
  }
}
