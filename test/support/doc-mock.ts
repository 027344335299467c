import { vi } from 'vitest';
import { DocumentClient, type DocCommand } from '../../shared/db/dynamodb.js';

type CommandClass<I, O> = abstract new (input: I) => DocCommand<I, O>;
type Answer = { kind: 'resolves'; value: unknown } | { kind: 'rejects'; error: unknown };
interface Rule {
  command: CommandClass<never, unknown>;
  input?: unknown;
  answer?: Answer;
}

/** `actual` contains `expected` (objects compared member by member, the rest equal). */
function contains(actual: unknown, expected: unknown): boolean {
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    if (!actual || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([k, v]) => contains((actual as Record<string, unknown>)[k], v));
  }
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((v, i) => contains(actual[i], v));
  return Object.is(actual, expected);
}

/**
 * Fault injection on the service's DynamoDB document client (every instance), for the faults the
 * real engine cannot be made to produce on demand: `on(Command, partialInput?)` answers matching
 * commands (the last matching rule wins, as with aws-sdk-client-mock); an unmatched command
 * resolves `undefined`; `commandCalls(Command)` lists the calls; `reset()` forgets rules and calls.
 */
export function mockDocumentClient() {
  const rules: Rule[] = [];
  const calls: { command: DocCommand<unknown, unknown> }[] = [];
  const spy = vi.spyOn(DocumentClient.prototype, 'send').mockImplementation(async (command: DocCommand<unknown, unknown>) => {
    calls.push({ command });
    const rule = [...rules].reverse().find((r) => command instanceof r.command && (r.input === undefined || contains(command.input, r.input)) && r.answer);
    if (!rule) return undefined;
    if (rule.answer!.kind === 'rejects') throw rule.answer!.error;
    return rule.answer!.value;
  });
  return {
    on<I, O>(command: CommandClass<I, O>, input?: Partial<I>) {
      const rule: Rule = { command: command as unknown as CommandClass<never, unknown>, input };
      rules.push(rule);
      return {
        resolves(value: Partial<O>) {
          rule.answer = { kind: 'resolves', value };
        },
        rejects(error: unknown) {
          rule.answer = { kind: 'rejects', error };
        },
      };
    },
    commandCalls<I, O>(command: CommandClass<I, O>): { args: [{ input: I }] }[] {
      return calls.filter((c) => c.command instanceof command).map((c) => ({ args: [c.command as unknown as { input: I }] }));
    },
    reset() {
      rules.length = 0;
      calls.length = 0;
    },
    restore() {
      spy.mockRestore();
    },
  };
}

/**
 * Makes the real document client fail the commands `matches` picks (the others reach DynamoDB
 * Local as usual) until the returned function is called: storage trouble in the middle of a job.
 */
export function failCommands(matches: (command: DocCommand<unknown, unknown>) => boolean, error: () => Error): () => void {
  const original = DocumentClient.prototype.send;
  const spy = vi.spyOn(DocumentClient.prototype, 'send').mockImplementation(function (this: DocumentClient, command: DocCommand<unknown, unknown>) {
    if (matches(command)) return Promise.reject(error());
    return original.call(this, command) as Promise<never>;
  });
  return () => spy.mockRestore();
}
