import { readFileSync, statSync } from 'node:fs';
import { beforeAll, beforeEach, inject } from 'vitest';

/**
 * The e2e project's setup file. The local server sleeps until the e2e files run (see
 * server-global-setup.ts): the first of them wakes it. Its output (the error lines of expected
 * failures included) stays in its file; the part written while a test ran is printed when that
 * test fails.
 */
const serverLog = inject('serverLog');

beforeAll(() => {
  try {
    process.kill(inject('serverPid'), 'SIGCONT');
  } catch {
    // Not a platform with job control signals, or the server has gone (its requests will say so).
  }
});

beforeEach((context) => {
  const from = statSync(serverLog).size;
  context.onTestFinished(() => {
    if (context.task.result?.state !== 'fail') return;
    const written = readFileSync(serverLog).subarray(from).toString('utf8');
    if (written.trim() === '') return;
    process.stderr.write(`[server log] what the local server wrote during "${context.task.name}":\n${written}\n`);
  });
});
