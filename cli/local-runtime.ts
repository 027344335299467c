/**
 * From a checkout, with neither EVAL_API_URL nor EVAL_API_KEY set: the local runtime `npm start`
 * runs, found through the record it keeps in its data directory (`<DATA_DIR>/local-env.json`, the
 * URL; DATA_DIR defaults to .data/) and the demo key it writes beside it (`<DATA_DIR>/demo-api-key`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { liveRuntime, localDataDir, readRuntimeRecord, runtimeRecordPath } from '../infra/local/state.js';

export interface LocalRuntime {
  url: string;
  key: string;
  /** The record the URL came from. */
  recordPath: string;
}

/** The running local runtime and its demo key, or why there is none (one line). */
export async function localRuntime(dataDir = localDataDir()): Promise<LocalRuntime | { problem: string }> {
  const recordPath = runtimeRecordPath(dataDir);
  let record: ReturnType<typeof readRuntimeRecord>;
  try {
    record = readRuntimeRecord(dataDir);
  } catch (error) {
    return { problem: `cannot read ${recordPath}: ${(error as Error).message}` };
  }
  if (!record) return { problem: `no local runtime is recorded in ${recordPath}` };
  if (!(await liveRuntime(dataDir)))
    return { problem: `the local runtime recorded in ${recordPath} (pid ${record.pid}) is not running` };
  if (!record.ready) return { problem: `the local runtime on ${record.url} is still starting; try again in a moment` };
  const keyPath = join(dataDir, 'demo-api-key');
  let key: string;
  try {
    key = readFileSync(keyPath, 'utf8').trim();
  } catch (error) {
    return {
      problem: `the local runtime on ${record.url} has no demo key in ${keyPath} (${(error as Error).message})`,
    };
  }
  if (!key) return { problem: `${keyPath} is empty` };
  return { url: record.url, key, recordPath };
}
