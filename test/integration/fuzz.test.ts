import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createPool, describeFinding, fuzz, loadContracts } from '../support/fuzz.js';

/**
 * The quick seeded run of the request fuzzer (`npm run fuzz` is the long one): every route, from
 * its schemas, with hostile values; never a 5xx, always `{error, message}` or a JSON success.
 * Strings stay at most 2,000 characters here (item size is not what this run is about).
 */
const SEED = 20261124;
const RUNS = 1000;

describe('request fuzzer (quick run)', () => {
  it(`answers ${RUNS} generated requests without a 5xx or internals (seed ${SEED})`, { timeout: 300_000 }, async () => {
    const member = await newTenant({ plan: 'ENTERPRISE' });
    const admin = await newTenant({ admin: true });
    const contracts = await loadContracts();
    const { findings, statuses } = await fuzz({
      contracts,
      seed: SEED,
      runs: RUNS,
      keys: { member: member.key, admin: admin.key },
      refresh: () => createPool(member.api, admin.api, member.org.id),
      fuzz: { maxString: 2000 },
    });
    const report = findings.map(describeFinding).join('\n\n');
    expect(findings.length, report).toBe(0);
    // The run reaches the handlers: successes and refusals both occur.
    const count = (pred: (s: number) => boolean) =>
      [...statuses].filter(([s]) => pred(s)).reduce((a, [, n]) => a + n, 0);
    expect(count((s) => s >= 200 && s < 300)).toBeGreaterThan(RUNS / 20);
    expect(count((s) => s === 400)).toBeGreaterThan(RUNS / 5);
  });
});
