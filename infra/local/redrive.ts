import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueName } from '../../shared/queue/sqs.js';
import { CliError, UsageError } from './cli.js';
import { openQueueDatabase, QUEUE_NAMES, QUEUES_FILE } from './sqlite-queues.js';
import { liveRuntime, localDataDir } from './state.js';

/**
 * `npm run admin -- redrive <queue>`: moves the dead letters of one local queue back onto it, in
 * the data directory of a stopped or running `npm start` (SQLite lets both at the file at once;
 * a running runtime's consumer finds them at its next poll). Answers the line to print; nothing to
 * redrive, like a wrong queue, is a `CliError` with exit code 2.
 */
export async function redrive(args: string[]): Promise<string> {
  const usage = `usage: npm run admin -- redrive ${QUEUE_NAMES.join('|')}`;
  if (args.length !== 1) throw new UsageError(args.length ? `redrive takes one queue; ${usage}` : usage);
  const queue = args[0] as QueueName;
  if (!QUEUE_NAMES.includes(queue))
    throw new UsageError(`unknown queue ${args[0]}; the queues are ${QUEUE_NAMES.join(', ')}`);
  if (process.env.TABLE_NAME)
    throw new CliError(
      'redrive moves the local queues of DATA_DIR; a deployment redrives its DLQ with `aws sqs start-message-move-task --source-arn <DLQ ARN>` (docs/operations.md)',
      2,
    );
  const dataDir = localDataDir();
  const running = await liveRuntime(dataDir);
  if (running?.queues === 'memory')
    throw new CliError(
      `nothing to redrive: the local runtime running on ${running.url} keeps its queues in memory (--in-memory)`,
      2,
    );
  const path = join(dataDir, QUEUES_FILE);
  if (!existsSync(path))
    throw new CliError(`nothing to redrive: there are no local queues in ${dataDir} (no ${QUEUES_FILE})`, 2);
  const queues = openQueueDatabase(path);
  let moved: number;
  try {
    moved = queues.redrive(queue);
  } finally {
    queues.close();
  }
  if (moved === 0) throw new CliError(`nothing to redrive: the ${queue} queue has no dead letters (${path})`, 2);
  const plural = moved === 1 ? 'dead letter' : 'dead letters';
  return `moved ${moved} ${plural} back onto the ${queue} queue${running ? `; the runtime on ${running.url} delivers them now` : '; npm start delivers them'}`;
}
