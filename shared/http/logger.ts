import { optionalEnv, ENV } from '../config/env.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const threshold = ORDER[(optionalEnv(ENV.logLevel) as Level | undefined) ?? 'info'] ?? ORDER.info;
const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;

/** One JSON line per entry; never pass secrets or request bodies here. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ level, message, ...(functionName ? { fn: functionName } : {}), ...fields, time: new Date().toISOString() });
  if (level === 'error' || level === 'warn') console.error(line);
  else console.log(line);
}
