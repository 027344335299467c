import { createHash } from 'node:crypto';
import { ID_PREFIX } from '../common/ids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of a run's session for one test case and repetition: a ULID whose time is the run's
 * creation and whose random part is a hash of (run, case, repetition). A redelivered fan-out names
 * the same session, so its conditional create finds it and writes nothing twice. The first
 * repetition hashes (run, case) alone, so runs created before repetitions keep their ids.
 */
export function deterministicSessionId(
  runId: string,
  testCaseId: string,
  runCreatedMs: number,
  repetition = 1,
): string {
  let time = '';
  let t = runCreatedMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const digest = createHash('sha256')
    .update(repetition === 1 ? `${runId}#${testCaseId}` : `${runId}#${testCaseId}#${repetition}`)
    .digest();
  let bits = 0n;
  for (const b of digest.subarray(0, 10)) bits = (bits << 8n) | BigInt(b);
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return `${ID_PREFIX.session}_${time}${random}`;
}
