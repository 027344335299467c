import { getStoredRun } from '../../db/runs.js';
import { runSessionFigures, setRunVoice } from '../../db/voice.js';
import { NotFoundError } from '../../errors.js';
import type { RunSessionsVoice } from '../../schemas/voice.js';
import { runVoice } from '../../voice/quality.js';

/**
 * A PHONE run's voice figures: the nearest-rank p50 and p95 of its sessions' figures, and the
 * share of sessions with an agent interruption (shared/voice/quality.ts `runVoice`). Computed when
 * the run finishes; a call's recording often ends after its session was counted, so a session's
 * figures that land later bring the run's up to date (`refreshRunVoice`).
 */

/** A run's figures before any session has some. */
export const NO_RUN_VOICE: RunSessionsVoice = runVoice([]);

/** The run's figures from its sessions' stored figures (sessions without figures are not counted). */
export async function runVoiceFigures(runId: string): Promise<RunSessionsVoice> {
  return runVoice(await runSessionFigures(runId));
}

/** How many times a refresh computes again when other sessions' figures land meanwhile. */
const REFRESH_ATTEMPTS = 5;

/**
 * Brings a finished PHONE run's figures up to date with its sessions': nothing while it has not
 * finished (finishing computes them), nor when they were computed after the last session's figures
 * landed. Called after a session's figures are stored and after the run finishes, so whichever of
 * the two comes last sees the other: the figures end current however they interleave.
 */
export async function refreshRunVoice(orgId: string, runId: string): Promise<void> {
  for (let attempt = 0; attempt < REFRESH_ATTEMPTS; attempt++) {
    let run: Awaited<ReturnType<typeof getStoredRun>>;
    try {
      run = await getStoredRun(orgId, runId);
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    if (run.channel !== 'PHONE' || !run._final) return;
    const stamp = run._voiceStamp ?? 0;
    if (run._voiceOf === stamp) return;
    if (await setRunVoice(orgId, runId, await runVoiceFigures(runId), stamp)) return;
  }
  throw new Error(`run ${runId}: its sessions' voice figures kept changing while its own were computed`);
}
