import { beforeEach } from 'vitest';

/**
 * The test logger of the unit and integration projects (a setup file): the service's log lines
 * (shared/observability/logger.ts writes Powertools' JSON lines on stdout and stderr) that a test
 * provokes on purpose, such as the "level":"ERROR" line of an expected 500, are held back, and
 * printed only when the test fails (with the lines of the hooks before it). Everything else is
 * written as usual. A test that reads the log itself (observability, log-secrets) spies on
 * `write` over this one and sees every line.
 */

const held: { write: (line: string) => void; line: string }[] = [];

/** A Powertools line: our formatter puts `level` first; metric (EMF) lines are not held. */
const isLogLine = (text: string) => text.startsWith('{"level":');

for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text === undefined || !isLogLine(text)) return write(chunk, ...rest);
    held.push({ write: (line) => write(line), line: text });
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return true;
  }) as typeof stream.write;
}

beforeEach((context) => {
  // Held since the previous test finished: this test's lines and those of the hooks before it.
  context.onTestFinished(() => {
    const lines = held.splice(0);
    if (context.task.result?.state !== 'fail' || lines.length === 0) return;
    process.stderr.write(`[test logger] ${lines.length} service log line(s) of "${context.task.name}":\n`);
    for (const { write, line } of lines) write(line);
  });
});
