import { DomainError } from '../../shared/errors.js';

/**
 * How the CLIs (`npm run admin`, `npm run invoke`, `npm run demo`) end: one line on stderr and a
 * non-zero exit for an ordinary mistake, no stack trace unless DEBUG is set.
 * Exit codes: 1 = the command failed, 2 = it was called wrongly (usage).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Prints why `error` ended the command and exits; domain errors the caller can fix are ordinary mistakes (unknown org, bad value). */
export function exitWith(error: unknown): never {
  if (process.env.DEBUG && error instanceof Error && error.stack) console.error(error.stack);
  if (error instanceof CliError) {
    if (!process.env.DEBUG) console.error(error.message);
    process.exit(error.exitCode);
  }
  if (error instanceof DomainError && error.isClientFault) {
    if (!process.env.DEBUG) console.error(error.message);
    process.exit(1);
  }
  if (!process.env.DEBUG)
    console.error(
      `unexpected error: ${error instanceof Error ? error.message : String(error)} (set DEBUG=1 for the stack trace)`,
    );
  process.exit(1);
}

/** Runs a CLI's body; every failure ends through `exitWith`. */
export async function runCli(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    exitWith(error);
  }
}

/** Asked for help (`--help`, `-h` or `help` as the first argument): prints the usage on stdout and exits 0. */
export function answerHelp(args: readonly string[], usage: string): void {
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    console.log(usage);
    process.exit(0);
  }
}
