/**
 * Splits a document's text into chunks for generation. Pure: paragraphs are kept
 * together up to `maxChars`; a longer paragraph is cut at sentence ends, then at spaces, then
 * anywhere. No chunk is empty or longer than `maxChars`, and no text is lost but whitespace.
 */
export const CHUNK_CHARS = 2000;

/** Whitespace tidied: line ends unified, trailing spaces and runs of blank lines removed. */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\t\f\v ]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function cut(piece: string, maxChars: number): string[] {
  if (piece.length <= maxChars) return [piece];
  const out: string[] = [];
  let rest = piece;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1);
    const sentence = Math.max(
      window.lastIndexOf('. '),
      window.lastIndexOf('! '),
      window.lastIndexOf('? '),
      window.lastIndexOf('\n'),
    );
    const space = window.lastIndexOf(' ');
    const at = sentence >= maxChars / 2 ? sentence + 1 : space > 0 ? space : maxChars;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out.filter((p) => p !== '');
}

export function chunkText(text: string, maxChars: number = CHUNK_CHARS): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError('maxChars must be a positive integer');
  const paragraphs = normaliseText(text)
    .split('\n\n')
    .filter((p) => p !== '')
    .flatMap((p) => cut(p, maxChars));
  const chunks: string[] = [];
  let current = '';
  for (const p of paragraphs) {
    if (current && current.length + 2 + p.length > maxChars) {
      chunks.push(current);
      current = p;
    } else current = current ? `${current}\n\n${p}` : p;
  }
  if (current) chunks.push(current);
  return chunks;
}
