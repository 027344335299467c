import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coldTimes } from '../../bench/cold-times.js';

const dir = mkdtempSync(join(tmpdir(), 'evp-cold-times-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench cold times', () => {
  // A module whose import does work: its own loop, so both times have something to count.
  const file = join(dir, 'work.mjs');
  writeFileSync(file, 'let x = 0;\nfor (let i = 0; i < 2e6; i++) x += i % 7;\nexport const sum = x;\n');

  it.each(['cpu', 'wall'] as const)(
    'times the import and the whole process, which holds the import and Node start (%s clock)',
    (clock) => {
      const times = coldTimes(file, clock, process.env);
      expect(Number.isFinite(times.import) && times.import > 0).toBe(true);
      expect(times.process).toBeGreaterThan(times.import);
    },
  );

  it('fails when the module cannot be imported, not with a time', () => {
    expect(() => coldTimes(join(dir, 'missing.mjs'), 'cpu', process.env)).toThrow();
  });
});
