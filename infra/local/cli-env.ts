import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOCAL_ENV_FILE } from './runtime.js';

/**
 * For the CLIs (invoke, admin): with TABLE_NAME already set (a deployed table, AWS credentials
 * from the usual chain) nothing changes; otherwise the environment of the running `npm start`
 * is loaded from .data/local-env.json.
 */
export function loadCliEnv(): 'deployed' | 'local' {
  if (process.env.TABLE_NAME) return 'deployed';
  const file = join(resolve(import.meta.dirname, '..', '..', '.data'), LOCAL_ENV_FILE);
  if (!existsSync(file)) {
    console.error('No TABLE_NAME set and no local runtime found: start it with `npm start` (or set TABLE_NAME for a deployed table).');
    process.exit(2);
  }
  Object.assign(process.env, JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>);
  return 'local';
}
