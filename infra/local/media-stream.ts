import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { WebSocket, type RawData } from 'ws';
import { FRAME_MS, FRAME_SAMPLES, fromMuLaw, MULAW_SILENCE } from '../../shared/voice/audio.js';
import { logger } from '../../shared/observability/logger.js';

/**
 * The phone line's side of a Twilio Media Streams WebSocket (bidirectional, `<Connect><Stream>`):
 * the line connects to the agent's URL as Twilio would, sends `connected`, `start`, one `media`
 * frame of the caller's audio every 20 ms (silence between utterances, as a live line does) and
 * `stop`; it plays what the agent sends (`media`) in real time, echoes the agent's `mark` once the
 * audio before it has played, and drops what has not played on `clear`.
 *
 * The agent's audio is placed by position (a jitter buffer), so a frame that arrives late on a
 * busy machine does not cut a word in two: each 20 ms frame of a talkspurt takes the position
 * after the one before it, and a talkspurt starts at the position being played when its first
 * frame arrives (or after the audio still queued). Media arriving within JITTER_FRAMES (100 ms)
 * of the previous media continues its talkspurt. A frame whose position has already been played
 * is handed to `onLate` with its position, and the recordings put it where it belongs; silence
 * stands only where a frame never came.
 */

/** Media arriving within this many frames (100 ms) of the previous continues its talkspurt. */
export const JITTER_FRAMES = 5;
/** A talkspurt running more than this many frames (1 s) behind the line starts again at the line's position. */
const MAX_LATE_FRAMES = 50;

/** A Twilio id: its two-letter prefix and 32 hex digits. */
export const twilioSid = (prefix: 'AC' | 'CA' | 'MZ'): string => `${prefix}${randomBytes(16).toString('hex')}`;

/** 20 ms of μ-law silence. */
export const SILENT_FRAME: Uint8Array = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);

/** Every μ-law code as a 16-bit sample, decoded once by the audio module; a frame decodes by lookup. */
const MULAW_SAMPLES = fromMuLaw(Uint8Array.from({ length: 256 }, (_, code) => code));

export function decodeMuLaw(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) samples[i] = MULAW_SAMPLES[bytes[i]!]!;
  return samples;
}

export interface StreamIds {
  accountSid: string;
  callSid: string;
}

/** An answered Media Streams connection. */
export class MediaStream {
  readonly streamSid = twilioSid('MZ');
  private sequence = 0;
  /** Frames exchanged so far: the position of the next frame played. */
  private chunk = 0;
  /** The agent's frames not played yet, by position. */
  private readonly frames = new Map<number, Uint8Array>();
  /** Bytes of the agent's next frame, short of a whole frame; it takes position `nextPosition`. */
  private partial: Uint8Array = new Uint8Array(0);
  /** The position the agent's next frame takes within its talkspurt. */
  private nextPosition = 0;
  /** The line's position when the agent's last media arrived; undefined before any (or after `clear`). */
  private lastArrival: number | undefined;
  /** The agent's marks, each echoed once the frame at `after` has played. */
  private marks: Array<{ name: string; after: number }> = [];
  private ended = false;
  private started = false;
  /** Called once when the agent closes the connection (it hung up); not when the line does. */
  onHangup: (() => void) | undefined;
  /** A frame of the agent's that arrived after its position was played: 16-bit samples, and that position. */
  onLate: ((position: number, samples: Int16Array) => void) | undefined;

  /** The position of the frame the last `exchange` played (0 for the first). */
  get position(): number {
    return this.chunk - 1;
  }

  constructor(
    private readonly ws: WebSocket,
    private readonly ids: StreamIds,
  ) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.receive(data);
    });
    ws.on('close', () => {
      if (this.ended) return;
      this.ended = true;
      this.onHangup?.();
    });
  }

  /** `connected`, then `start` with the call's ids and custom parameters. */
  start(customParameters: Record<string, string>): void {
    this.started = true;
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    this.send({
      event: 'start',
      sequenceNumber: this.nextSequence(),
      start: {
        accountSid: this.ids.accountSid,
        streamSid: this.streamSid,
        callSid: this.ids.callSid,
        // A bidirectional stream carries the caller's track only; the agent's audio is what it sends.
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
      streamSid: this.streamSid,
    });
  }

  /**
   * One 20 ms step of the line: sends `frame` (the caller's audio) to the agent and returns the
   * agent's next 20 ms, taken from what it sent (silence where it sent nothing in time).
   */
  exchange(frame: Uint8Array): Uint8Array {
    this.chunk++;
    this.send({
      event: 'media',
      sequenceNumber: this.nextSequence(),
      media: {
        track: 'inbound',
        chunk: String(this.chunk),
        timestamp: String((this.chunk - 1) * FRAME_MS),
        payload: Buffer.from(frame).toString('base64'),
      },
      streamSid: this.streamSid,
    });
    return this.play();
  }

  /** The line hangs up: `stop` (when the stream started), then the socket closes. */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.started)
      this.send({
        event: 'stop',
        sequenceNumber: this.nextSequence(),
        streamSid: this.streamSid,
        stop: { accountSid: this.ids.accountSid, callSid: this.ids.callSid },
      });
    this.ws.close(1000);
  }

  /** The agent's frame at the position now played (silence where none came yet), then the marks it completes. */
  private play(): Uint8Array {
    const position = this.chunk - 1;
    let frame = this.frames.get(position);
    if (frame) this.frames.delete(position);
    else if (this.partial.length > 0 && this.nextPosition <= position) {
      // A frame's first bytes and no more in time: it plays as it is, the rest silence.
      frame = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);
      frame.set(this.partial);
      this.partial = new Uint8Array(0);
      this.nextPosition = position + 1;
    }
    const done = this.marks.filter((m) => m.after <= position);
    if (done.length > 0) {
      this.marks = this.marks.filter((m) => m.after > position);
      for (const m of done) this.echoMark(m.name);
    }
    return frame ?? SILENT_FRAME;
  }

  /** The agent's audio, cut into frames placed one after another in its talkspurt. */
  private place(bytes: Uint8Array): void {
    const now = this.chunk;
    const continues =
      this.lastArrival !== undefined &&
      now - this.lastArrival <= JITTER_FRAMES &&
      now - this.nextPosition <= MAX_LATE_FRAMES;
    if (!continues) this.nextPosition = Math.max(now, this.nextPosition);
    this.lastArrival = now;
    let pending = bytes;
    if (this.partial.length > 0) {
      pending = new Uint8Array(this.partial.length + bytes.length);
      pending.set(this.partial);
      pending.set(bytes, this.partial.length);
    }
    let at = 0;
    for (; at + FRAME_SAMPLES <= pending.length; at += FRAME_SAMPLES) {
      const frame = pending.slice(at, at + FRAME_SAMPLES);
      const position = this.nextPosition++;
      if (position >= now) this.frames.set(position, frame);
      else this.onLate?.(position, decodeMuLaw(frame));
    }
    this.partial = pending.slice(at);
  }

  private receive(data: RawData): void {
    let message: { event?: unknown; media?: { payload?: unknown }; mark?: { name?: unknown } };
    try {
      message = JSON.parse(data.toString());
    } catch {
      logger.debug('phone line: a Media Streams message that is not JSON was ignored');
      return;
    }
    switch (message.event) {
      case 'media':
        if (typeof message.media?.payload === 'string' && message.media.payload.length > 0)
          this.place(new Uint8Array(Buffer.from(message.media.payload, 'base64')));
        return;
      case 'mark':
        // After the audio sent before it: the partial frame's position, else the last whole frame's.
        if (typeof message.mark?.name === 'string')
          this.marks.push({
            name: message.mark.name,
            after: this.partial.length > 0 ? this.nextPosition : this.nextPosition - 1,
          });
        return;
      case 'clear': {
        // What has not played is dropped; the marks come back at once, as Twilio sends them.
        this.frames.clear();
        this.partial = new Uint8Array(0);
        this.nextPosition = this.chunk;
        this.lastArrival = undefined;
        const cleared = this.marks.splice(0);
        for (const m of cleared) this.echoMark(m.name);
        return;
      }
      default:
        logger.debug('phone line: a Media Streams message was ignored', { event: String(message.event) });
    }
  }

  private echoMark(name: string): void {
    this.send({ event: 'mark', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, mark: { name } });
  }

  private nextSequence(): string {
    return String(++this.sequence);
  }

  private send(message: unknown): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }
}

/**
 * Dials an agent: opens the WebSocket. Resolves with the answered stream, or with the reason it
 * was not answered (refused, closed, an HTTP answer instead of an upgrade, or `signal` aborted).
 */
export function dial(url: string, ids: StreamIds, signal: AbortSignal): Promise<MediaStream | { unanswered: string }> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve({ unanswered: 'not answered in time' });
    const ws = new WebSocket(url);
    // A socket error is followed by `close`, which is what ends a call; unhandled, it would throw.
    ws.on('error', (error) => logger.debug('phone line: WebSocket error', { error: error.message }));
    let settled = false;
    const settle = (result: MediaStream | { unanswered: string }) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = () => {
      ws.terminate();
      settle({ unanswered: 'not answered in time' });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    ws.once('open', () => settle(new MediaStream(ws, ids)));
    ws.once('unexpected-response', (_req, res) => {
      ws.terminate();
      settle({ unanswered: `the agent answered HTTP ${res.statusCode} instead of a WebSocket` });
    });
    ws.once('error', (error) => settle({ unanswered: `the connection failed: ${error.message}` }));
    ws.once('close', () => settle({ unanswered: 'the agent closed the connection' }));
  });
}

/**
 * Calls `tick` every 20 ms of real time until stopped, on a monotonic clock: each tick is due at
 * `start + n × 20 ms`, so late timers never add up to drift; a late tick is caught up at once.
 */
export function startFrameClock(tick: () => void, now: () => number = () => performance.now()): { stop(): void } {
  const start = now();
  let ticks = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    timer = setTimeout(run, Math.max(0, start + (ticks + 1) * FRAME_MS - now()));
  };
  const run = () => {
    const due = Math.floor((now() - start) / FRAME_MS);
    while (ticks < due && !stopped) {
      ticks++;
      tick();
    }
    if (!stopped) schedule();
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
