import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { runScript, type CliRun } from '../support/raw-http.js';

const dataDir = inject('dataDir');
const scratch = mkdtempSync(join(tmpdir(), 'evp-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The CLI against the e2e runtime (TABLE_NAME unset, so it reads DATA_DIR/local-env.json). */
function cli(script: 'admin' | 'invoke', args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runScript(`infra/local/${script}.ts`, args, {
    TABLE_NAME: undefined,
    DEBUG: undefined,
    DATA_DIR: dataDir,
    ...env,
  });
}

/** One line on stderr, no stack frame, the exit code. */
function expectOneLineFailure(run: CliRun, code: 1 | 2, pattern: RegExp) {
  expect(run.code).toBe(code);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(pattern);
}

describe('npm run admin', () => {
  it('says an unknown organization is not found (exit 1)', async () => {
    expectOneLineFailure(
      await cli('admin', ['set-credits', '--org', 'org_nobody', '--credits', '5']),
      1,
      /^organization org_nobody not found$/,
    );
  });

  it('names a bad flag, a bad value and a missing command as usage errors (exit 2)', async () => {
    expectOneLineFailure(
      await cli('admin', ['set-credits', '--org', 'org_demo', '--bogus']),
      2,
      /^Unknown option '--bogus'.*usage:/,
    );
    expectOneLineFailure(
      await cli('admin', ['create-org', '--name', 'Acme', '--plan', 'GOLD']),
      2,
      /^--plan must be one of FREE, PRO, ENTERPRISE, got GOLD$/,
    );
    expectOneLineFailure(
      await cli('admin', ['set-credits', '--org', 'org_demo', '--credits=1.5']),
      2,
      /^--credits must be a whole number/,
    );
    expectOneLineFailure(await cli('admin', []), 2, /^usage: npm run admin/);
  });

  it.each(['--help', '-h', 'help'])('prints its usage on stdout for %s (exit 0)', async (flag) => {
    const run = await cli('admin', [flag]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toMatch(/^usage: npm run admin -- create-org .* \| seed$/);
  });

  it('sets the credits of an existing organization', async () => {
    const run = await cli('admin', ['set-credits', '--org', 'org_demo', '--credits', '1000']);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('organization org_demo: 1000 credits/month');
    expect(run.code).toBe(0);
  });

  it('says no runtime is running when DATA_DIR has none (exit 1)', async () => {
    expectOneLineFailure(
      await cli('admin', ['seed'], { DATA_DIR: scratch }),
      1,
      /^no local runtime is running .*npm start/,
    );
  });

  it('says a recorded runtime whose process is gone is not running (exit 1)', async () => {
    const stale = mkdtempSync(join(scratch, 'stale-'));
    writeFileSync(
      join(stale, 'local-env.json'),
      JSON.stringify({ pid: 2 ** 22 + 1, url: 'http://127.0.0.1:9', ready: true, env: {} }),
    );
    expectOneLineFailure(
      await cli('admin', ['seed'], { DATA_DIR: stale }),
      1,
      /is not running; start it with `npm start`/,
    );
  });
});

describe('npm run invoke', () => {
  it('runs a handler on its sample event', async () => {
    const run = await cli('invoke', ['phone-connections/list', 'events/phone-connections-list.json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ statusCode: 200 });
  });

  it('says an unknown function, a missing event file and an invalid one in one line (exit 1)', async () => {
    expectOneLineFailure(
      await cli('invoke', ['nothing/here', 'events/phone-connections-list.json']),
      1,
      /^no function functions\/nothing\/here\.ts/,
    );
    expectOneLineFailure(
      await cli('invoke', ['phone-connections/list', 'events/none.json']),
      1,
      /^event file events\/none\.json not found$/,
    );
    const bad = join(scratch, 'bad.json');
    writeFileSync(bad, '{"httpMethod":');
    expectOneLineFailure(await cli('invoke', ['phone-connections/list', bad]), 1, /is not valid JSON/);
  });

  it('prints its usage on stdout for --help (exit 0)', async () => {
    const run = await cli('invoke', ['--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toMatch(/^usage: npm run invoke -- <handler under functions\/.*>$/);
  });

  it('answers a wrong call with its usage (exit 2)', async () => {
    expectOneLineFailure(await cli('invoke', ['phone-connections/list']), 2, /^usage: npm run invoke/);
    expectOneLineFailure(await cli('invoke', ['--verbose', 'a', 'b']), 2, /^unknown option --verbose/);
  });

  it('says no runtime is running when DATA_DIR has none (exit 1)', async () => {
    expectOneLineFailure(
      await cli('invoke', ['phone-connections/list', 'events/phone-connections-list.json'], { DATA_DIR: scratch }),
      1,
      /^no local runtime is running/,
    );
  });
});
