import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTEGRATION_OWN_MODULES, NEEDS_OWN_MODULES, UNIT_OWN_MODULES } from '../support/isolation.js';

const root = resolve(import.meta.dirname, '..', '..');
const filesIn = (dir: string) =>
  readdirSync(resolve(root, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${dir}/${f}`);

describe('test files that need modules of their own', () => {
  it.each([
    ['test/unit', UNIT_OWN_MODULES],
    ['test/integration', INTEGRATION_OWN_MODULES],
  ])(
    '%s: every file that mocks a module or sets the environment at load runs isolated, and no other',
    (dir, listed) => {
      const needing = filesIn(dir).filter((f) => NEEDS_OWN_MODULES.test(readFileSync(resolve(root, f), 'utf8')));
      expect([...listed].sort()).toEqual(needing.sort());
    },
  );
});
