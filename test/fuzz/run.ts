/**
 * `npm run fuzz`: the long run of the request fuzzer (test/support/fuzz.ts). Starts its own
 * DynamoDB Local and s3rver on free ports, sends FUZZ_RUNS requests (default 10,000) generated
 * from FUZZ_SEED (default: the current time, printed), prints progress and every finding with
 * the seed that reproduces it, and exits non-zero when there is a finding.
 *
 *   npm run fuzz
 *   FUZZ_RUNS=50000 FUZZ_SEED=42 npm run fuzz
 *   FUZZ_SEED=<seed of a finding> FUZZ_RUNS=1 npm run fuzz       # replays one finding
 *   FUZZ_MAX_STRING=300000 npm run fuzz                           # longer strings (default 2,000)
 *   DYNAMODB_ENDPOINT=http://127.0.0.1:8000 S3_ENDPOINT=http://127.0.0.1:4569 npm run fuzz   # running emulators
 */
import { startTestServices } from '../support/test-services.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${raw}`);
  return n;
}

const runs = intEnv('FUZZ_RUNS', 10_000);
const seed = intEnv('FUZZ_SEED', Date.now() % 2 ** 31);
const maxString = intEnv('FUZZ_MAX_STRING', 2000);

// DYNAMODB_ENDPOINT / S3_ENDPOINT point at running emulators instead (as for `npm start`).
process.env.LOG_LEVEL ??= 'error';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const services = await startTestServices({
  tableName: `fuzz-${process.pid}`,
  bucket: 'fuzz-bucket',
  reuseRunning: true,
});
let exitCode = 0;
try {
  const { newTenant } = await import('../support/api.js');
  const { createPool, describeFinding, fuzz, loadContracts } = await import('../support/fuzz.js');
  const member = await newTenant({ plan: 'ENTERPRISE' });
  const admin = await newTenant({ admin: true });
  const contracts = await loadContracts();
  console.log(
    `fuzzing ${contracts.length} routes: ${runs} requests, FUZZ_SEED=${seed}, strings up to ${maxString} characters`,
  );
  const started = Date.now();
  const summary = (statuses: Map<number, number>) =>
    [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
  const { findings, statuses } = await fuzz({
    contracts,
    seed,
    runs,
    keys: { member: member.key, admin: admin.key },
    refresh: () => createPool(member.api, admin.api, member.org.id),
    fuzz: { maxString },
    onProgress: (done, found, st) =>
      console.log(
        `${done}/${runs} requests, ${found} findings, ${Math.round((Date.now() - started) / 1000)} s — ${summary(st)}`,
      ),
    onFinding: (f) => console.log(`\n${describeFinding(f)}\n`),
  });
  console.log(
    `done: ${runs} requests in ${Math.round((Date.now() - started) / 1000)} s, ${findings.length} findings — ${summary(statuses)}`,
  );
  if (findings.length) exitCode = 1;
} catch (error) {
  console.error(error);
  exitCode = 2;
} finally {
  await services.stop();
}
process.exit(exitCode);
