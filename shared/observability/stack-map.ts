import { readFileSync } from 'node:fs';
import type { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * A logged stack's bundle positions, mapped to the files they came from. Functions run without
 * `--enable-source-maps`, which makes Node read and parse every bundle's map at load (≈ 15 % of a
 * small function's cold start). A map is read here instead, with Node's own `SourceMap`, the first
 * time a stack from its bundle is logged: only on the error path, once per bundle and process.
 * A stack Node already mapped, or a frame with no map beside its file, is left as it is.
 */

/** `<file>:<line>:<column>` at the end of a V8 stack frame, the file a path or a file: URL of a `.js`/`.mjs`/`.cjs`. */
const FRAME_POSITION = /((?:file:\/\/)?\/[^\s()]+?\.[cm]?js):(\d+):(\d+)(?=\)?$)/gm;

const maps = new Map<string, SourceMap | null>();

/** The map beside `file` (`<file>.map`, as the bundler writes it), read once; null when there is none. */
function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = null;
    try {
      const path = file.startsWith('file:') ? fileURLToPath(file) : file;
      const payload = JSON.parse(readFileSync(`${path}.map`, 'utf8'));
      const { SourceMap: NodeSourceMap } = process.getBuiltinModule('node:module');
      map = new NodeSourceMap(payload);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/**
 * `stack` with each bundle position replaced by its source's, relative to the project
 * (`shared/db/client.ts:12:7`, `node_modules/@smithy/…/x.js:3:1`).
 */
export function mapStack(stack: string): string;
export function mapStack(stack: string | undefined): string | undefined;
export function mapStack(stack: string | undefined): string | undefined {
  if (!stack) return stack;
  return stack.replace(FRAME_POSITION, (position: string, file: string, line: string, column: string) => {
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry) || !entry.originalSource) return position;
    // The bundler names sources relative to the bundle's folder (`../../shared/…`).
    const source = entry.originalSource.replace(/^(?:\.\.\/)+/, '');
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
