/**
 * Voice activity on one channel of a recording: in 20 ms frames, a frame is speech when its RMS is
 * at least 200 (on the 16-bit scale); speech segments closer than 300 ms are merged, then segments
 * shorter than 100 ms are dropped. Times are in ms from the start of the recording.
 */

export const ACTIVITY_FRAME_MS = 20;
/** The RMS (16-bit samples) from which a frame is speech. */
export const SPEECH_RMS = 200;
/** Segments separated by less than this are one segment. */
export const MERGE_GAP_MS = 300;
/** Segments shorter than this (after merging) are noise, not speech. */
export const MIN_SEGMENT_MS = 100;

/** A stretch of speech, [startMs, endMs). */
export interface Segment {
  startMs: number;
  endMs: number;
}

/** The speech segments of one channel's 16-bit samples at `sampleRate`. */
export function speechSegments(samples: Int16Array, sampleRate: number): Segment[] {
  const frame = (sampleRate * ACTIVITY_FRAME_MS) / 1000;
  const raw: Segment[] = [];
  for (let i = 0, f = 0; i < samples.length; i += frame, f++) {
    const end = Math.min(i + frame, samples.length);
    let sum = 0;
    for (let j = i; j < end; j++) sum += samples[j]! * samples[j]!;
    if (Math.sqrt(sum / (end - i)) < SPEECH_RMS) continue;
    const startMs = f * ACTIVITY_FRAME_MS;
    const endMs = startMs + ((end - i) / sampleRate) * 1000;
    const last = raw.at(-1);
    if (last && last.endMs === startMs) last.endMs = endMs;
    else raw.push({ startMs, endMs });
  }
  return dropShort(mergeClose(raw));
}

/** Segments (in order) with gaps under MERGE_GAP_MS closed. */
export function mergeClose(segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segments) {
    const last = out.at(-1);
    if (last && s.startMs - last.endMs < MERGE_GAP_MS) last.endMs = Math.max(last.endMs, s.endMs);
    else out.push({ ...s });
  }
  return out;
}

/** Segments of MIN_SEGMENT_MS or longer. */
export function dropShort(segments: readonly Segment[]): Segment[] {
  return segments.filter((s) => s.endMs - s.startMs >= MIN_SEGMENT_MS);
}
