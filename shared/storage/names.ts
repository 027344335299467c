import { ValidationError } from '../errors.js';

/** Content types accepted for uploads: datasets, documents and call recordings. */
export const UPLOAD_CONTENT_TYPES = [
  'text/csv',
  'application/json',
  'application/jsonl',
  'application/x-ndjson',
  'text/plain',
  'application/pdf',
  'text/html',
  'text/markdown',
  'audio/mpeg',
  'audio/mp4',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/ogg',
  'audio/webm',
  'audio/flac',
] as const;

/** A file name safe as the last segment of a key: no separators, no `..`, at most 255 bytes. */
export function safeFileName(name: string): string {
  if (/[/\\]/.test(name)) throw new ValidationError('fileName must not contain path separators');
  if (name.includes('..')) throw new ValidationError("fileName must not contain '..'");
  // eslint-disable-next-line no-control-regex
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new ValidationError('fileName must not contain control characters');
  const cleaned = name.trim().replace(/[^A-Za-z0-9._-]+/g, '_');
  if (!cleaned || cleaned === '.' || /^_*$/.test(cleaned))
    throw new ValidationError('fileName must contain letters or digits');
  if (Buffer.byteLength(cleaned, 'utf8') > 255) throw new ValidationError('fileName must be at most 255 bytes');
  return cleaned;
}
