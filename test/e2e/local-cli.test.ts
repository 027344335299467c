import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { runScript, type CliRun } from '../support/raw-http.js';
import { openQueueDatabase, QUEUES_FILE } from '../../infra/local/sqlite-queues.js';

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
    expect(run.stdout.trim()).toMatch(
      /^usage: npm run admin -- create-org .* \| seed \| redrive evaluation\|run\|webhook\|generation\|voice$/,
    );
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

describe('npm run admin -- redrive', () => {
  it('moves the dead letters of a stopped runtime back onto their queue, and says so', async () => {
    const stopped = mkdtempSync(join(scratch, 'stopped-'));
    const queues = openQueueDatabase(join(stopped, QUEUES_FILE));
    queues.send('webhook', ['{"job":1}', '{"job":2}'], 0);
    const store = queues.store('webhook');
    // Each failed three receives (released by a consumer that gave up on it): dead letters.
    for (let i = 0; i < 3; i++) for (const m of store.receive(10)) store.release(m, 0);
    expect(queues.counts().webhook).toEqual({ waiting: 0, inFlight: 0, dead: 2 });
    queues.close();

    const run = await cli('admin', ['redrive', 'webhook'], { DATA_DIR: stopped });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('moved 2 dead letters back onto the webhook queue; npm start delivers them');
    expect(run.code).toBe(0);
    const after = openQueueDatabase(join(stopped, QUEUES_FILE));
    expect(after.counts().webhook).toEqual({ waiting: 2, inFlight: 0, dead: 0 });
    expect(
      after
        .store('webhook')
        .receive(10)
        .map((m) => [m.body, m.receiveCount]),
    ).toEqual([
      ['{"job":1}', 1],
      ['{"job":2}', 1],
    ]);
    after.close();
    expectOneLineFailure(
      await cli('admin', ['redrive', 'webhook'], { DATA_DIR: stopped }),
      2,
      /^nothing to redrive: the webhook queue has no dead letters \(/,
    );
  });

  it('says why there is nothing to redrive, and names a wrong queue (exit 2)', async () => {
    expectOneLineFailure(
      await cli('admin', ['redrive', 'runs']),
      2,
      /^unknown queue runs; the queues are evaluation, run, webhook, generation, voice$/,
    );
    expectOneLineFailure(
      await cli('admin', ['redrive']),
      2,
      /^usage: npm run admin -- redrive evaluation\|run\|webhook\|generation\|voice$/,
    );
    expectOneLineFailure(await cli('admin', ['redrive', 'run', '--all']), 2, /^Unknown option '--all'.*usage:/);
    expectOneLineFailure(
      await cli('admin', ['redrive', 'run', '--org', 'org_demo']),
      2,
      /^redrive takes no option \(--org\)/,
    );
    expectOneLineFailure(
      await cli('admin', ['redrive', 'run'], { DATA_DIR: scratch }),
      2,
      /^nothing to redrive: there are no local queues in .* \(no queues\.sqlite\)$/,
    );
    // The e2e runtime runs --in-memory: its queues are not in its data directory.
    expectOneLineFailure(
      await cli('admin', ['redrive', 'run']),
      2,
      /^nothing to redrive: the local runtime running on http:\/\/127\.0\.0\.1:\d+ keeps its queues in memory \(--in-memory\)$/,
    );
    expectOneLineFailure(
      await cli('admin', ['redrive', 'run'], { TABLE_NAME: 'EvalPlatform-Table' }),
      2,
      /aws sqs start-message-move-task --source-arn <DLQ ARN>/,
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
