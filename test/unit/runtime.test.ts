import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('runs the tests on Node.js 22, the Lambda runtime (the `node` devDependency, first on PATH under npm)', () => {
    expect(process.versions.node.split('.')[0]).toBe('22');
    expect(process.versions.node).toBe(pkg.devDependencies.node);
  });
});
