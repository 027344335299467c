/**
 * `npm run invoke -- <handler> <event.json>`: runs one function on a sample event against the
 * local table (while `npm start` runs) or a deployed one (TABLE_NAME set). Example:
 *   npm run invoke -- phone-connections/list events/phone-connections-list.json
 * `--help` prints the usage. A mistake prints one line on stderr: exit 2 for a wrong call, 1 for a
 * failed run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadCliEnv } from './cli-env.js';
import { answerHelp, CliError, runCli, UsageError } from './cli.js';
import { lambdaContext, loadHandler, PROJECT_ROOT } from './gateway.js';
// Jobs a handler enqueues land in the in-process queues (queue URLs are local:// here).
import './queues.js';

const USAGE =
  'usage: npm run invoke -- <handler under functions/, e.g. phone-connections/list> <event file, e.g. events/phone-connections-list.json>';

await runCli(async () => {
  const args = process.argv.slice(2);
  answerHelp(args, USAGE);
  const flag = args.find((a) => a.startsWith('-'));
  if (flag) throw new UsageError(`unknown option ${flag}; ${USAGE}`);
  if (args.length !== 2) throw new UsageError(USAGE);
  const [name, file] = args as [string, string];
  const handlerName = name.replace(/^functions\//, '').replace(/\.ts$/, '');
  if (
    !/^[a-z0-9-]+(\/[a-z0-9-]+)*$/i.test(handlerName) ||
    !existsSync(resolve(PROJECT_ROOT, 'functions', `${handlerName}.ts`))
  ) {
    throw new CliError(
      `no function functions/${handlerName}.ts (handlers are named by their path under functions/, e.g. phone-connections/list or jobs/scanner)`,
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'ENOENT'
        ? `event file ${file} not found`
        : `cannot read event file ${file} (${code ?? (error as Error).message})`,
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (error) {
    throw new CliError(`event file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  await loadCliEnv();
  const handler = await loadHandler(handlerName);
  let result: unknown;
  try {
    result = await handler(event, lambdaContext(handlerName));
  } catch (error) {
    throw new CliError(`${handlerName} threw: ${(error as Error).message}`);
  }
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
});
