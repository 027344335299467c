// A small voice agent speaking the Twilio Media Streams WebSocket protocol, for trying voice runs
// locally: it listens to the caller's 20 ms μ-law frames, waits for the end of what was said (a
// pause after speech), reads it with the tone codec of the speech stub (speech-stub.mjs), and
// answers after DELAY_MS with the same words spoken back (an echo agent, on the phone), in real time.
// Usage: node examples/voice/voice-agent.mjs (listens on ws://127.0.0.1:$PORT, default 3404), then
// start the service with LOCAL_PHONE_AGENTS='{"+15550100001":"ws://127.0.0.1:3404"}'.
// Each answer prints what it heard and the response latency it measured (the end of the caller's
// speech to its first answering frame). When the caller speaks over an answer for 100 ms, the agent
// stops talking (it sends Media Streams `clear`, which drops what it had sent and not yet played)
// and listens: a barge-in. Options: DELAY_MS (default 600), HANG_UP_AFTER (hang up after that many
// answers; default never), SAY (answer with this text instead of the echo), BARGE_IN=off (talk on).
import { setTimeout as sleep } from 'node:timers/promises';
import wavefile from 'wavefile';
import { WebSocketServer } from 'ws';
import { decodeAudio, encodeText } from './tone-codec.mjs';

const FRAME_MS = 20;
const FRAME_SAMPLES = 160;
/** A frame is speech above this RMS (about -40 dBFS); a pause this long after speech ends an utterance. */
const SPEECH_RMS = 330;
const END_OF_SPEECH_MS = 400;
/** The caller speaking this long over an answer stops it. */
const BARGE_IN_MS = 100;
/** A gap in the caller's speech up to this long is inside it. */
const GAP_IN_SPEECH_MS = 100;

/** @param {Uint8Array} bytes */
function fromMuLaw(bytes) {
  const wav = new wavefile.WaveFile();
  wav.fromScratch(1, 8000, '8m', bytes);
  wav.fromMuLaw('16');
  return /** @type {Int16Array} */ (/** @type {unknown} */ (wav.getSamples(false, Int16Array)));
}

/** @param {Int16Array} samples */
function toMuLaw(samples) {
  const wav = new wavefile.WaveFile();
  wav.fromScratch(1, 8000, '16', samples);
  wav.toMuLaw();
  return Uint8Array.from(/** @type {{ samples: Uint8Array }} */ (wav.data).samples);
}

/** @param {Int16Array} frame */
const rms = (frame) => Math.sqrt(frame.reduce((a, s) => a + s * s, 0) / Math.max(1, frame.length));

/**
 * Starts the agent.
 * @param {{ port?: number, delayMs?: number, hangUpAfter?: number, say?: string, bargeIn?: boolean,
 *   onAnswer?: (a: { heard: string, said: string, latencyMs: number, customParameters: Record<string, string>,
 *     interruptedAfterMs?: number }) => void }} options
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startVoiceAgent(options = {}) {
  const delayMs = Math.max(END_OF_SPEECH_MS + 40, options.delayMs ?? 600);
  const server = new WebSocketServer({ host: '127.0.0.1', port: options.port ?? 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => {
    /** @type {string | undefined} */
    let streamSid;
    /** @type {Record<string, string>} */
    let customParameters = {};
    /** @type {Int16Array[]} */
    let heard = [];
    let speaking = false;
    let quietMs = 0;
    let lastSpeechAt = 0;
    let answering = false;
    /** Caller speech heard over the answer under way; long enough, it stops the answer. */
    let over = /** @type {Int16Array[]} */ ([]);
    let overLoud = 0;
    let overQuiet = 0;
    let interrupted = false;
    let answers = 0;
    let sequence = 1;
    /** The answers, one after another. */
    let turns = Promise.resolve();

    /** @param {string} text */
    const answer = async (text, endedAt) => {
      answering = true;
      const said = options.say ?? text;
      const samples = encodeText(said, { sampleRate: 8000 });
      const payload = toMuLaw(samples);
      // The first frame goes out delayMs after the caller's speech ended, then one every 20 ms.
      const start = endedAt + delayMs;
      await sleep(Math.max(0, start - performance.now()));
      const latencyMs = Math.round(performance.now() - endedAt);
      const startedAt = performance.now();
      for (let i = 0, chunk = 1; i < payload.length; i += FRAME_SAMPLES, chunk++) {
        if (socket.readyState !== socket.OPEN) return;
        if (interrupted) {
          // Barged in on: what was sent and not yet played is dropped, and the agent listens.
          socket.send(JSON.stringify({ event: 'clear', streamSid }));
          answers++;
          const interruptedAfterMs = Math.round(performance.now() - startedAt);
          options.onAnswer?.({ heard: text, said, latencyMs, customParameters, interruptedAfterMs });
          if (!options.onAnswer)
            console.log(`heard "${text}", stopped saying "${said}" after ${interruptedAfterMs} ms`);
          answering = false;
          interrupted = false;
          return;
        }
        const frame = new Uint8Array(FRAME_SAMPLES).fill(0xff);
        frame.set(payload.subarray(i, i + FRAME_SAMPLES));
        socket.send(
          JSON.stringify({
            event: 'media',
            sequenceNumber: String(sequence++),
            streamSid,
            media: { payload: Buffer.from(frame).toString('base64') },
          }),
        );
        await sleep(Math.max(0, start + chunk * FRAME_MS - performance.now()));
      }
      // A caller who spoke up as the last frame went out is heard as a new utterance.
      interrupted = false;
      socket.send(
        JSON.stringify({
          event: 'mark',
          sequenceNumber: String(sequence++),
          streamSid,
          mark: { name: `answer-${answers + 1}` },
        }),
      );
      answers++;
      options.onAnswer?.({ heard: text, said, latencyMs, customParameters });
      if (!options.onAnswer) console.log(`heard "${text}", said "${said}" after ${latencyMs} ms`);
      answering = false;
      if (options.hangUpAfter !== undefined && answers >= options.hangUpAfter) socket.close();
    };

    socket.on('message', (data) => {
      /** @type {any} */
      let message;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (message.event === 'start') {
        streamSid = message.start?.streamSid ?? message.streamSid;
        customParameters = message.start?.customParameters ?? {};
        if (options.hangUpAfter === 0) setTimeout(() => socket.close(), 100);
        return;
      }
      if (message.event !== 'media') return;
      const frame = fromMuLaw(Buffer.from(message.media?.payload ?? '', 'base64'));
      const now = performance.now();
      if (answering && !interrupted) {
        if (options.bargeIn === false) return;
        // Speech has short gaps (between syllables): a stretch of quiet longer than them starts over.
        if (rms(frame) > SPEECH_RMS) {
          over.push(frame);
          overLoud++;
          overQuiet = 0;
        } else if (over.length > 0) {
          over.push(frame);
          if (++overQuiet * FRAME_MS > GAP_IN_SPEECH_MS) {
            over = [];
            overLoud = 0;
          }
        }
        if (overLoud * FRAME_MS < BARGE_IN_MS) return;
        // The caller talks over the answer: it stops, and what the caller says from here is heard.
        interrupted = true;
        heard = over;
        over = [];
        overLoud = 0;
        overQuiet = 0;
        speaking = true;
        quietMs = 0;
        lastSpeechAt = now;
        return;
      }
      if (rms(frame) > SPEECH_RMS) {
        speaking = true;
        quietMs = 0;
        lastSpeechAt = now;
        heard.push(frame);
        return;
      }
      if (!speaking) return;
      heard.push(frame);
      quietMs += FRAME_MS;
      if (quietMs < END_OF_SPEECH_MS) return;
      const samples = new Int16Array(heard.reduce((n, f) => n + f.length, 0));
      let at = 0;
      for (const f of heard) {
        samples.set(f, at);
        at += f.length;
      }
      heard = [];
      speaking = false;
      quietMs = 0;
      // After the answer under way, if it is still winding down from a barge-in.
      const text = decodeAudio(samples, 8000);
      const endedAt = lastSpeechAt + FRAME_MS;
      turns = turns.then(() => answer(text, endedAt));
    });
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve(undefined));
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const agent = await startVoiceAgent({
    port: Number(process.env.PORT ?? 3404),
    delayMs: Number(process.env.DELAY_MS ?? 600),
    ...(process.env.HANG_UP_AFTER ? { hangUpAfter: Number(process.env.HANG_UP_AFTER) } : {}),
    ...(process.env.SAY ? { say: process.env.SAY } : {}),
    bargeIn: process.env.BARGE_IN !== 'off',
  });
  console.log(`voice agent on ${agent.url}`);
}
