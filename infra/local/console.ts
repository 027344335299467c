import { readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { consoleCsp, CONSOLE_DIST } from '../console-build.js';

/**
 * The console on the local server: `/`, `/console-config.json` and the files of
 * console/dist. The console's own routes live after `#`, so there is no fallback: any other path
 * is not answered here and keeps the API's 404 JSON.
 */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface ConsoleAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function file(path: string, cache: string): ConsoleAnswer {
  const body = readFileSync(path);
  const type = TYPES[extname(path)] ?? 'application/octet-stream';
  const headers: Record<string, string> = {
    'Content-Type': type,
    'Content-Length': String(body.length),
    'Cache-Control': cache,
    'X-Content-Type-Options': 'nosniff',
  };
  if (type.startsWith('text/html')) headers['Content-Security-Policy'] = consoleCsp(localMediaOrigins());
  return { status: 200, headers, body };
}

/** The local S3 emulator, whose presigned URLs the console's audio players load and its test upload puts to. */
function localMediaOrigins(): string[] {
  const endpoint = process.env.S3_ENDPOINT;
  if (!endpoint) return [];
  try {
    return [new URL(endpoint).origin];
  } catch {
    return [];
  }
}

/** The API base the console calls: this server, as the browser reached it (so no cross-origin call). */
function apiBaseUrl(host: string | undefined, fallback: string): string {
  return host && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `http://${host}` : fallback;
}

/**
 * The answer for a console path, or undefined when the path is not the console's (the API
 * answers it). `serverUrl` is the fallback API base when the request has no usable Host header.
 */
/** A file of the built console; a path no file system can hold (too long, a file as a folder) is none. */
function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

export function consoleAnswer(
  method: string,
  pathname: string,
  host: string | undefined,
  serverUrl: string,
): ConsoleAnswer | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  if (pathname === '/console-config.json') {
    const body = Buffer.from(JSON.stringify({ apiBaseUrl: apiBaseUrl(host, serverUrl) }));
    return {
      status: 200,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'Cache-Control': 'no-store',
      },
      body,
    };
  }
  const relative = pathname === '/' ? 'index.html' : pathname.slice(1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return undefined;
  }
  const path = normalize(join(CONSOLE_DIST, decoded));
  if (!path.startsWith(CONSOLE_DIST + sep) || decoded.includes('\0')) return undefined;
  if (!isFile(path)) return undefined;
  // Vite names assets by content hash: they never change; index.html always asks again.
  return file(path, decoded.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
}
