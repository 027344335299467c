/**
 * Where the demos connect and with which key: API_URL, else http://127.0.0.1:$PORT, else the
 * running `npm start` (its record in <DATA_DIR>/local-env.json), else http://127.0.0.1:3000; the
 * key from API_KEY, else DEMO_API_KEY, else <DATA_DIR>/demo-api-key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './cli.js';
import { localDataDir, readRuntimeRecord } from './state.js';

export function baseUrl(): string {
  if (process.env.API_URL) return process.env.API_URL.replace(/\/+$/, '');
  if (process.env.PORT) return `http://127.0.0.1:${process.env.PORT}`;
  try {
    const record = readRuntimeRecord(localDataDir());
    if (record) return record.url.replace(/\/+$/, '');
  } catch {
    // not a runtime record: fall back to the default port, whose answer (or silence) says more
  }
  return 'http://127.0.0.1:3000';
}

/** The file `npm start` writes its demo key to (in DATA_DIR, default .data/). */
export const apiKeyFile = (): string => join(localDataDir(), 'demo-api-key');

export function apiKey(): string {
  const given = process.env.API_KEY || process.env.DEMO_API_KEY;
  if (given) return given.trim();
  const file = apiKeyFile();
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new CliError(
    'No API key: set API_KEY (or DEMO_API_KEY), or start the local API with `npm start`, which writes .data/demo-api-key.',
  );
}
