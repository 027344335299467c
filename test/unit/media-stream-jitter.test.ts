import { EventEmitter } from 'node:events';
import { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { decodeMuLaw, MediaStream, SILENT_FRAME } from '../../infra/local/media-stream.js';
import { FRAME_SAMPLES, toMuLaw } from '../../shared/voice/audio.js';

/** A WebSocket stand-in: the test delivers the agent's messages itself, between the line's ticks. */
class FakeSocket extends EventEmitter {
  readyState: number = WebSocket.OPEN;
  sent: any[] = [];
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = WebSocket.CLOSED;
  }
  deliver(message: unknown) {
    this.emit('message', Buffer.from(JSON.stringify(message)), false);
  }
}

/** A seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** K frames of speech, each its own tone so that order shows. */
function speech(frames: number): Uint8Array[] {
  return Array.from({ length: frames }, (_, k) => {
    const samples = Int16Array.from({ length: FRAME_SAMPLES }, (_, i) =>
      Math.round(6000 * Math.sin((2 * Math.PI * (300 + 20 * k) * i) / 8000)),
    );
    return toMuLaw(samples);
  });
}

/**
 * Runs the line for `ticks` frames; before tick n the agent's frames due by then arrive. What the
 * line played at each position, with late frames put where they belong, is the recording.
 */
function run(arrivals: Array<{ at: number; message: unknown }>, ticks: number) {
  const ws = new FakeSocket();
  const stream = new MediaStream(ws as unknown as WebSocket, { accountSid: 'AC1', callSid: 'CA1' });
  const recording: Int16Array[] = [];
  stream.onLate = (position, samples) => {
    recording[position] = samples;
  };
  let next = 0;
  for (let n = 0; n < ticks; n++) {
    while (next < arrivals.length && arrivals[next]!.at <= n) ws.deliver(arrivals[next++]!.message);
    recording[n] = decodeMuLaw(stream.exchange(SILENT_FRAME));
  }
  return { recording, ws };
}

const media = (frame: Uint8Array) => ({ event: 'media', media: { payload: Buffer.from(frame).toString('base64') } });
const silence = decodeMuLaw(SILENT_FRAME);

describe('the phone line’s jitter buffer', () => {
  it('records the agent’s frames where they belong when each arrives up to 60 ms late, in three seeded sittings', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const frames = speech(100);
      const start = 10;
      // Frame k is due at tick start + k; it arrives up to 3 ticks (60 ms) late, in order (one socket).
      let last = 0;
      const arrivals = frames.map((frame, k) => {
        last = Math.max(last, start + k + Math.floor(next() * 4));
        return { at: last, message: media(frame) };
      });
      expect(arrivals.some((a, k) => a.at > start + k)).toBe(true);
      const { recording } = run(arrivals, start + frames.length + 20);
      // The talkspurt starts where its first frame arrived: nothing can tell a late first frame from a later start.
      const first = arrivals[0]!.at;
      for (let n = 0; n < first; n++) expect(recording[n]).toEqual(silence);
      for (const [k, frame] of frames.entries()) expect(recording[first + k], `frame ${k}`).toEqual(decodeMuLaw(frame));
      for (let n = first + frames.length; n < recording.length; n++) expect(recording[n]).toEqual(silence);
    }
  });

  it('plays audio sent faster than real time one frame after another, and a later talkspurt where it arrives', () => {
    const frames = speech(30);
    // All at once at tick 5 in payloads of 7 frames (the last one short), then 3 frames at tick 100.
    const payload = (from: number, to: number) => ({
      event: 'media',
      media: { payload: Buffer.concat(frames.slice(from, to)).toString('base64') },
    });
    const arrivals = [
      { at: 5, message: payload(0, 7) },
      { at: 5, message: payload(7, 14) },
      { at: 5, message: payload(14, 27) },
      { at: 100, message: payload(27, 30) },
    ];
    const { recording } = run(arrivals, 120);
    for (let k = 0; k < 27; k++) expect(recording[5 + k]).toEqual(decodeMuLaw(frames[k]!));
    expect(recording[32]).toEqual(silence);
    for (let k = 27; k < 30; k++) expect(recording[100 + k - 27]).toEqual(decodeMuLaw(frames[k]!));
  });

  it('echoes a mark once the audio before it has played, and drops what has not played on clear', () => {
    const frames = speech(20);
    const arrivals = [
      ...frames.slice(0, 10).map((frame) => ({ at: 2, message: media(frame) })),
      { at: 2, message: { event: 'mark', mark: { name: 'first' } } },
      ...frames.slice(10).map((frame) => ({ at: 3, message: media(frame) })),
      { at: 3, message: { event: 'mark', mark: { name: 'second' } } },
      { at: 8, message: { event: 'clear' } },
    ];
    const { recording, ws } = run(arrivals, 30);
    const marks = ws.sent.filter((m) => m.event === 'mark').map((m) => m.mark.name);
    // 'first' follows frame 9 (position 11), which never plays: the clear at position 8 returns both marks.
    expect(marks).toEqual(['first', 'second']);
    for (let k = 0; k < 6; k++) expect(recording[2 + k]).toEqual(decodeMuLaw(frames[k]!));
    for (let n = 8; n < 30; n++) expect(recording[n]).toEqual(silence);
  });
});
