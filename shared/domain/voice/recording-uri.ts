import type { AuthContext } from '../../auth/context.js';
import { ValidationError } from '../../errors.js';
import { bucketName, localS3Endpoints, readObjectStart } from '../../storage/s3.js';
import { canonicalStorageUri, parseS3Uri } from '../../storage/uri.js';
import { ownedKey } from '../tests/storage.js';
import { NOT_IN_STORAGE } from './figures.js';

/**
 * A production session's `recordingUri`, checked when POST or PATCH /sessions sets it. Stored as a
 * canonical URI. An object of this service's storage must be the caller's (403 another
 * organization's), exist (400) and be a recording the voice job can read (400 with the reason,
 * from its header: a stereo WAV, 8 or 16 kHz, up to 2 hours, holding audio); its figures are then
 * computed by the voice job. A URI elsewhere (another bucket, Azure) is kept as a link: the job
 * cannot read it, so the session says why it has no figures.
 */

/** How much of an upload is read to check its header: the fmt chunk and the data chunk's size come first. */
const HEADER_BYTES = 64 * 1024;

export interface AcceptedRecording {
  recordingUri: string;
  /** The voice job analyses it (an object of this service's storage). */
  analyse: boolean;
  /** Why the session will have no figures, when known at once. */
  voiceError: string | null;
}

export async function acceptRecording(auth: AuthContext, value: string): Promise<AcceptedRecording> {
  const recordingUri = canonicalStorageUri(value, 'recordingUri', localS3Endpoints);
  const location = parseS3Uri(recordingUri);
  if (!location || location.bucket !== bucketName) return { recordingUri, analyse: false, voiceError: NOT_IN_STORAGE };
  const key = ownedKey(auth, recordingUri, 'recordingUri');
  const head = await readObjectStart(key, HEADER_BYTES);
  if (!head) throw new ValidationError(`recordingUri: no object at ${recordingUri} (upload the recording first)`);
  // The WAV code (wavefile) is a lazy module: only a request that sets a recording loads it.
  const { checkRecordingHeader, RecordingError } = await import('#voice-recording');
  try {
    checkRecordingHeader(head.start);
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    // A WAV whose chunks before its fmt run past what was read could not be parsed from its start:
    // the job reads it whole (and says why, if it is no recording after all).
    const cutShort = head.size > head.start.length && isRiffWave(head.start) && !hasFmt(head.start);
    if (!cutShort) throw new ValidationError(`recordingUri: ${error.message}`);
  }
  return { recordingUri, analyse: true, voiceError: null };
}

const isRiffWave = (bytes: Buffer) =>
  bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE';
const hasFmt = (bytes: Buffer) => bytes.includes('fmt ', 12, 'latin1');
