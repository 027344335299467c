import { once } from 'node:events';
import wavefile from 'wavefile';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeText } from '../../examples/voice/tone-codec.mjs';
import { startVoiceAgent } from '../../examples/voice/voice-agent.mjs';

const { WaveFile } = wavefile;
const FRAME = 160;

/** 8 kHz samples as 20 ms μ-law frames, base64, the last padded with silence. */
function frames(samples: Int16Array): string[] {
  const wav = new WaveFile();
  wav.fromScratch(1, 8000, '16', samples);
  wav.toMuLaw();
  const bytes = Uint8Array.from((wav.data as { samples: Uint8Array }).samples);
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += FRAME) {
    const frame = new Uint8Array(FRAME).fill(0xff);
    frame.set(bytes.subarray(i, i + FRAME));
    out.push(Buffer.from(frame).toString('base64'));
  }
  return out;
}

const silence = (count: number) => frames(new Int16Array(count * FRAME));

type Answer = Parameters<NonNullable<NonNullable<Parameters<typeof startVoiceAgent>[0]>['onAnswer']>>[0];

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A line that speaks `utterance` to the agent and keeps what the agent sends. */
async function call(bargeIn?: boolean) {
  const answers: Answer[] = [];
  const agent = await startVoiceAgent({ delayMs: 440, onAnswer: (a) => answers.push(a), bargeIn });
  close = agent.close;
  const ws = new WebSocket(agent.url);
  await once(ws, 'open');
  const received: any[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  const send = (payloads: string[]) => {
    for (const payload of payloads) ws.send(JSON.stringify({ event: 'media', streamSid: 'MZ1', media: { payload } }));
  };
  ws.send(JSON.stringify({ event: 'start', streamSid: 'MZ1', start: { streamSid: 'MZ1', customParameters: {} } }));
  return { ws, received, answers, send };
}

describe('the example voice agent', () => {
  it('stops talking when the caller speaks over it (clear), then answers what the caller said', async () => {
    const line = await call();
    line.send([...frames(encodeText('tell me everything about the weather', { sampleRate: 8000 })), ...silence(25)]);
    // Its answer starts: the caller barges in with a new question, then pauses.
    await vi.waitFor(() => expect(line.received.filter((m) => m.event === 'media').length).toBeGreaterThan(5), {
      timeout: 10_000,
    });
    line.send([...frames(encodeText('stop', { sampleRate: 8000 })), ...silence(25)]);
    await vi.waitFor(() => expect(line.answers).toHaveLength(2), { timeout: 10_000 });

    const [first, second] = line.answers;
    expect(first).toMatchObject({ heard: 'tell me everything about the weather' });
    expect(first!.interruptedAfterMs).toBeGreaterThan(0);
    expect(second).toMatchObject({ heard: 'stop', said: 'stop' });
    expect(second!.interruptedAfterMs).toBeUndefined();
    // The first answer was cut short: a clear, and fewer frames than it holds; no mark for it.
    const clear = line.received.findIndex((m) => m.event === 'clear');
    expect(clear).toBeGreaterThan(0);
    const before = line.received.slice(0, clear).filter((m) => m.event === 'media').length;
    expect(before).toBeLessThan(
      frames(encodeText('tell me everything about the weather', { sampleRate: 8000 })).length,
    );
    await vi.waitFor(() =>
      expect(line.received.filter((m) => m.event === 'mark').map((m) => m.mark.name)).toEqual(['answer-2']),
    );
    line.ws.close();
  });

  it('talks on with barge-in off', async () => {
    const line = await call(false);
    line.send([...frames(encodeText('hello', { sampleRate: 8000 })), ...silence(25)]);
    await vi.waitFor(() => expect(line.received.filter((m) => m.event === 'media').length).toBeGreaterThan(5), {
      timeout: 10_000,
    });
    line.send(frames(encodeText('stop', { sampleRate: 8000 })));
    await vi.waitFor(() => expect(line.answers).toHaveLength(1), { timeout: 10_000 });
    expect(line.answers[0]).toMatchObject({ heard: 'hello', said: 'hello' });
    expect(line.answers[0]!.interruptedAfterMs).toBeUndefined();
    expect(line.received.some((m) => m.event === 'clear')).toBe(false);
    line.ws.close();
  });
});
