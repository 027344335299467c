import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';
import { doc } from '../../shared/db/client.js';

/** A command the document client sends (a lib-dynamodb command: its class and its input). */
export type DocCommand = Parameters<DynamoDBDocumentClient['send']>[0] & { input: Record<string, unknown> };

/**
 * Makes the real document client fail the commands `matches` picks (the others reach DynamoDB
 * Local as usual) until the returned function is called: storage trouble in the middle of a job,
 * which no engine produces on demand. Faults on a fully mocked client use aws-sdk-client-mock.
 */
export function failCommands(matches: (command: DocCommand) => boolean, error: () => Error): () => void {
  const original = doc.send.bind(doc) as (command: DocCommand) => Promise<unknown>;
  const spy = vi.spyOn(doc, 'send').mockImplementation(((command: DocCommand) => {
    if (matches(command)) return Promise.reject(error());
    return original(command);
  }) as never);
  return () => spy.mockRestore();
}
