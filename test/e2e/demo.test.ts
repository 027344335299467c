import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it, inject } from 'vitest';
import { freePort } from '../../infra/local/services.js';

const base = inject('serverUrl');
const key = inject('demoApiKey');
const root = resolve(import.meta.dirname, '..', '..');

/** Runs `npm run demo`'s script as a user would, with the given environment. */
function demo(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/demo.ts'], {
      cwd: root,
      env: { ...process.env, DEMO_API_KEY: '', PORT: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', rej);
    child.once('exit', (code) => res({ code, stdout, stderr }));
  });
}

describe('npm run demo, a client of the HTTP API', () => {
  it('prints each step as it goes, waits for the scores and summarises them', async () => {
    const out = await demo({
      API_URL: base,
      API_KEY: key,
      DEMO_SESSIONS: '32',
      DEMO_POLL_SECONDS: '0.5',
      DEMO_TIMEOUT_SECONDS: '60',
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toBe(`Connected to ${base} as "Demo organization" (ENTERPRISE)`);
    expect(out.stdout).toMatch(/^✓ product created: Demo support bot .* \(prod_\w+\)$/m);
    expect(out.stdout).toMatch(/^✓ monitor created: "Production quality" \(mon_\w+\) on non_empty_output and no_pii/m);
    for (const n of [10, 20, 30, 32]) expect(lines).toContain(`  ${n}/32 sessions sent`);
    expect(lines).toContain('  32/32 sessions closed (status COMPLETED)');
    expect(lines).toContain(
      '✓ 32 sessions played and closed; 4 are test messages the monitor skips, 28 should be scored',
    );
    expect(out.stdout).toMatch(/^✓ all 28 sessions scored and aggregated after \d+ s$/m);
    // 28 scored: 2 answers are empty, 4 give a phone number and 2 an e-mail address; under 30 sessions, no interval yet
    expect(lines).toContain(
      '  non_empty_output  score 0.929  collecting data (an interval from 30 scored sessions)  28 scored sessions',
    );
    expect(lines).toContain(
      '  no_pii            score 0.786  collecting data (an interval from 30 scored sessions)  28 scored sessions',
    );
    expect(lines).toContain('  worst metric: no_pii (0.786)');
    expect(out.stdout).toMatch(/no_pii: found a phone number in actual_output at character 26 \("\+1 •••-•••-••34"\)/);
    expect(out.stdout).toMatch(
      /no_pii: found an e-mail address in actual_output at character 20 \("jo••••\.•••@•••••••\.•om"\)/,
    );
    expect(out.stdout).toMatch(/non_empty_output: actual_output is empty/);
    expect(out.stdout).not.toContain('jordan.lee@example.com');
    expect(out.stdout).toMatch(/^The full answer: curl .*\/monitors\/mon_\w+\/results\?days=2"$/m);
  }, 90_000);

  it('says in one line when the key is wrong', async () => {
    const out = await demo({ API_URL: base, API_KEY: 'evk_wrongwrongwrongwrongwrongwrongwr000000' });
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(
      new RegExp(
        `^The API at ${base.replace(/[.:/]/g, '\\$&')} refused the key \\(401 .*\\): use the key \`npm start\` printed`,
      ),
    );
  });

  it('says in one line when no API is running', async () => {
    const port = await freePort();
    const out = await demo({ API_URL: `http://127.0.0.1:${port}`, API_KEY: key });
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toBe(
      `No API answering at http://127.0.0.1:${port} (ECONNREFUSED): start it with \`npm start\` in another terminal, or set API_URL.`,
    );
  });
});
