import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/**
 * The console's build, shared by `npm start` (serves console/dist) and CDK
 * (deploys it): build when console/dist is missing or older than a source, one builder at a time.
 */
/**
 * The console page's Content-Security-Policy, locally and behind CloudFront: the API is on the
 * same origin; uPlot and the span bars set inline `style` attributes; nothing is remote.
 */
/**
 * The console's Content-Security-Policy. `mediaOrigins`: the data bucket's origin, beside the
 * console's own: the audio it plays comes from its presigned GET URLs (voice runs' recordings and
 * utterances), and a CSV uploaded as a test goes to its presigned PUT URL.
 */
export function consoleCsp(mediaOrigins: readonly string[] = []): string {
  const storage = ["'self'", ...mediaOrigins].join(' ');
  return `default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src ${storage}; connect-src ${storage}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
}

const ROOT = resolve(import.meta.dirname, '..');
export const CONSOLE_DIR = join(ROOT, 'console');
export const CONSOLE_DIST = join(CONSOLE_DIR, 'dist');
const LOCK = join(CONSOLE_DIR, '.build-lock');
/** A lock older than this was left by a builder that died. */
const STALE_LOCK_MS = 5 * 60_000;
const SKIPPED = new Set(['dist', 'node_modules', '.build-lock']);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.startsWith('.dist-')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when console/dist is missing or a console source (or the lockfile's dependency set) is newer. */
export function consoleIsStale(): boolean {
  const index = join(CONSOLE_DIST, 'index.html');
  if (!existsSync(index)) return true;
  const sources = Math.max(newestMtime(CONSOLE_DIR), statSync(join(ROOT, 'package-lock.json')).mtimeMs);
  return statSync(index).mtimeMs < sources;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function takeLock(): void {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS || Date.now() > deadline) rmSync(LOCK, { recursive: true, force: true });
      else sleepSync(200);
    }
  }
}

/**
 * Runs `vite build` into a scratch folder and swaps it in, so a server reading console/dist never
 * sees half a build. Throws with vite's output when the build fails.
 */
export function buildConsole(): void {
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  const scratch = join(CONSOLE_DIR, `.dist-${process.pid}`);
  try {
    execFileSync(
      process.execPath,
      [vite, 'build', CONSOLE_DIR, '--outDir', scratch, '--emptyOutDir', '--logLevel', 'warn'],
      { cwd: ROOT, stdio: 'pipe' },
    );
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    const e = error as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`the console build failed: ${`${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || e.message}`);
  }
  const old = join(CONSOLE_DIR, `.dist-old-${process.pid}`);
  if (existsSync(CONSOLE_DIST)) renameSync(CONSOLE_DIST, old);
  renameSync(scratch, CONSOLE_DIST);
  rmSync(old, { recursive: true, force: true });
}

/** Builds the console when it is stale; returns whether it built. Safe across processes. */
export function ensureConsoleBuilt(): boolean {
  if (!consoleIsStale()) return false;
  takeLock();
  try {
    // Another process may have built it while this one waited.
    if (!consoleIsStale()) return false;
    buildConsole();
    return true;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
