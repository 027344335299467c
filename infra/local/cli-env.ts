import { CliError } from './cli.js';
import { liveRuntime, localDataDir, processIsAlive, readRuntimeRecord, runtimeRecordPath } from './state.js';

export type CliTarget = { kind: 'deployed' } | { kind: 'local'; url: string; dataDir: string };

/**
 * For the CLIs (invoke, admin, demo): with TABLE_NAME already set (a deployed table, AWS
 * credentials from the SDK's default chain) nothing changes; otherwise the environment of the running
 * `npm start` is loaded from `<data dir>/local-env.json` (DATA_DIR, default .data). Throws a
 * `CliError` with one line when no runtime is running there.
 */
export async function loadCliEnv(): Promise<CliTarget> {
  // The SDK clients find the operator's credentials through their default chain (profile, SSO, …).
  if (process.env.TABLE_NAME) return { kind: 'deployed' };
  const dataDir = localDataDir();
  const start = 'start it with `npm start` (or set TABLE_NAME for a deployed table)';
  let record: ReturnType<typeof readRuntimeRecord>;
  try {
    record = readRuntimeRecord(dataDir);
  } catch (error) {
    throw new CliError(`cannot read ${runtimeRecordPath(dataDir)} (${(error as Error).message}); ${start}`);
  }
  if (!record) throw new CliError(`no local runtime is running (no ${runtimeRecordPath(dataDir)}); ${start}`);
  if (!processIsAlive(record.pid) || !(await liveRuntime(dataDir))) {
    throw new CliError(
      `the local runtime recorded in ${runtimeRecordPath(dataDir)} (pid ${record.pid}) is not running; ${start}`,
    );
  }
  if (!record.ready || !record.env)
    throw new CliError(`the local runtime on ${record.url} is still starting; try again in a moment`);
  Object.assign(process.env, record.env);
  return { kind: 'local', url: record.url, dataDir };
}
