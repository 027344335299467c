import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import wavefile from 'wavefile';
import { type WebSocket, WebSocketServer } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createPhoneLine,
  parseLocalPhoneAgents,
  type PhoneLine,
  phoneLineFromEnv,
  s3Objects,
} from '../../infra/local/phone-line.js';
import { bucketName } from '../../shared/storage/s3.js';
import type { ChimeAction, ChimeEvent, ChimeResponse } from '../../shared/telephony/chime-events.js';
import {
  concatSamples,
  decodeWav,
  encodeWav,
  FRAME_SAMPLES,
  fromMuLaw,
  leadingSilenceMs,
  levelOf,
  muLawFrames,
  toMuLaw,
} from '../../shared/voice/audio.js';
import { fakeClock } from '../support/fake-clock.js';

const { WaveFile } = wavefile;

const FROM = '+15550000001';
const AGENT = '+15550000100';
const NOBODY = '+15550000199';
const REPLY_DELAY_MS = 300;
/** A frame louder than this is speech (the scripted RecordAudio's SilenceThreshold, Chime's default). */
const THRESHOLD = 200;

/** A sine tone, `ms` long (a multiple of 20 keeps it on whole frames). */
function tone(hz: number, ms: number, amplitude = 8000): Int16Array {
  return Int16Array.from({ length: (ms * 8000) / 1000 }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 8000)),
  );
}

/** What a tone sounds like after the line's μ-law. */
const overTheLine = (samples: Int16Array) => fromMuLaw(toMuLaw(samples));

/** The stretches of 20 ms frames louder than the threshold: first frame and length, in frames. */
function loudRuns(samples: Int16Array): { start: number; frames: number }[] {
  const runs: { start: number; frames: number }[] = [];
  for (let f = 0; f * FRAME_SAMPLES < samples.length; f++) {
    const loud = levelOf(samples.subarray(f * FRAME_SAMPLES, (f + 1) * FRAME_SAMPLES)) > THRESHOLD;
    const last = runs.at(-1);
    if (loud && last && last.start + last.frames === f) last.frames++;
    else if (loud) runs.push({ start: f, frames: 1 });
  }
  return runs;
}

// ---------------------------------------------------------------------------------------------
// A voice agent speaking the Twilio Media Streams protocol: it listens to what the line sends,
// and REPLY_DELAY_MS after an utterance's last frame arrived it answers with its reply (sent in
// bursts faster than real time, as TTS pipelines do) and a mark.

interface AgentCall {
  ws: WebSocket;
  /** Every message the line sent, in order. */
  messages: any[];
  /** Every media frame the line sent, decoded. */
  heard: Int16Array[];
  /** Marks the line echoed. */
  marks: string[];
}

interface FakeAgent {
  url: string;
  calls: AgentCall[];
  close(): Promise<void>;
}

async function startAgent(options: { reply: Int16Array; hangUpAfterReply?: boolean }): Promise<FakeAgent> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const calls: AgentCall[] = [];
  server.on('connection', (ws) => {
    const call: AgentCall = { ws, messages: [], heard: [], marks: [] };
    calls.push(call);
    let streamSid = '';
    let speaking = false;
    let lastSpeechAt = 0;
    let replies = 0;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      call.messages.push(message);
      if (message.event === 'start') streamSid = message.start.streamSid;
      if (message.event === 'mark') {
        call.marks.push(message.mark.name);
        if (options.hangUpAfterReply) ws.close();
      }
      if (message.event !== 'media') return;
      const frame = fromMuLaw(new Uint8Array(Buffer.from(message.media.payload, 'base64')));
      call.heard.push(frame);
      if (levelOf(frame) > THRESHOLD) {
        speaking = true;
        lastSpeechAt = performance.now();
      } else if (speaking) {
        // The utterance ended with the previous frame.
        speaking = false;
        const name = `reply-${++replies}`;
        setTimeout(
          () => {
            const frames = muLawFrames(options.reply);
            for (let i = 0; i < frames.length; i += 5) {
              const payload = Buffer.concat(frames.slice(i, i + 5)).toString('base64');
              ws.send(JSON.stringify({ event: 'media', streamSid, media: { payload } }));
            }
            ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name } }));
          },
          Math.max(0, REPLY_DELAY_MS - (performance.now() - lastSpeechAt)),
        );
      }
    });
  });
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/media`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/** A server that accepts TCP connections and never answers the WebSocket handshake: its calls ring. */
async function neverAnswering() {
  const sockets: Socket[] = [];
  const closed: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('close', () => closed.push(socket));
    socket.resume();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    /** The connections it accepted, and those that have closed since. */
    sockets,
    closed,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A scripted call-control handler: records every event, answers from a script, and notes whether
// two invocations ever overlapped (each takes a few ms, so an overlap would show).

function scripted(script: (event: ChimeEvent) => ChimeResponse | Promise<ChimeResponse>) {
  const events: ChimeEvent[] = [];
  let active = 0;
  let maxActive = 0;
  const waiting: { test: () => boolean; resolve: () => void }[] = [];
  const handler = async (event: ChimeEvent): Promise<ChimeResponse> => {
    active++;
    maxActive = Math.max(maxActive, active);
    try {
      events.push(event);
      await sleep(5);
      return await script(event);
    } finally {
      active--;
      for (const w of waiting.splice(0)) {
        if (w.test()) w.resolve();
        else waiting.push(w);
      }
    }
  };
  /** Resolves once `count` events matching `predicate` have been handled. */
  const handled = (predicate: (event: ChimeEvent) => boolean, count = 1) =>
    new Promise<void>((resolve) => {
      const test = () => events.filter(predicate).length >= count;
      if (test()) resolve();
      else waiting.push({ test, resolve });
    });
  return { handler, events, handled, maxActive: () => maxActive };
}

const is = (type: string, action?: string) => (event: ChimeEvent) =>
  event.InvocationEventType === type && (action === undefined || event.ActionData?.Type === action);

const respond = (actions: ChimeAction[], attributes?: Record<string, string>): ChimeResponse => ({
  SchemaVersion: '1.0',
  Actions: actions,
  ...(attributes ? { TransactionAttributes: attributes } : {}),
});

/** The arguments of a NEW_OUTBOUND_CALL or CALL_UPDATE_REQUESTED. */
const argumentsOf = (event: ChimeEvent) => (event.ActionData?.Parameters?.Arguments ?? {}) as Record<string, string>;

const types = (events: ChimeEvent[]) => events.map((e) => e.InvocationEventType);

// ---------------------------------------------------------------------------------------------

let agent: FakeAgent;
let lines: PhoneLine[] = [];
const prefix = `phone-line-test/${randomUUID()}`;
const utterance1 = tone(440, 400);
const utterance2 = tone(550, 320);
const reply = tone(300, 400, 6000);

const line = (handler: (event: ChimeEvent) => Promise<ChimeResponse>, agents: Record<string, string> = {}) => {
  const created = createPhoneLine({ handler, agents: { [AGENT]: agent.url, ...agents }, ...s3Objects });
  lines.push(created);
  return created;
};

const play = (key: string): ChimeAction => ({
  Type: 'PlayAudio',
  Parameters: { CallId: '', AudioSource: { Type: 'S3', BucketName: bucketName, Key: `${prefix}/${key}` } },
});

const record = (silenceSeconds = 1): ChimeAction => ({
  Type: 'RecordAudio',
  Parameters: {
    CallId: '',
    DurationInSeconds: 10,
    SilenceDurationInSeconds: silenceSeconds,
    SilenceThreshold: THRESHOLD,
    RecordingTerminators: ['#'],
    RecordingDestination: { Type: 'S3', BucketName: bucketName, Prefix: `${prefix}/answers/` },
  },
});

/** The actions of a script, addressed to the call's leg. */
function onLeg(event: ChimeEvent, actions: ChimeAction[]): ChimeAction[] {
  const callId = event.CallDetails.Participants[0]!.CallId;
  return actions.map((a) => ({ ...a, Parameters: { ...a.Parameters, CallId: callId } }) as ChimeAction);
}

async function readWav(location: { BucketName: string; Key: string }): Promise<Int16Array> {
  return decodeWav(await s3Objects.readObject(location.BucketName, location.Key));
}

beforeAll(async () => {
  agent = await startAgent({ reply });
  await s3Objects.writeObject(bucketName, `${prefix}/1-user.wav`, encodeWav(utterance1));
  await s3Objects.writeObject(bucketName, `${prefix}/2-user.wav`, encodeWav(utterance2));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(lines.map((l) => l.close()));
  lines = [];
  agent.calls.length = 0;
});

afterAll(async () => {
  await agent.close();
});

describe('the local phone line', () => {
  it('runs a two-turn call as Chime would: events, real-time audio both ways, recordings', async () => {
    const script = scripted((event) => {
      const attributes = { sessionId: 'sess_1', seen: String(event.Sequence) };
      switch (event.InvocationEventType) {
        case 'CALL_ANSWERED':
          return respond(
            onLeg(event, [
              {
                Type: 'StartCallRecording',
                Parameters: {
                  CallId: '',
                  Track: 'BOTH',
                  Destination: { Type: 'S3', Location: `${bucketName}/${prefix}/rec` },
                },
              },
              play('1-user.wav'),
              record(),
            ]),
            attributes,
          );
        case 'ACTION_SUCCESSFUL':
          return respond(
            onLeg(event, [{ Type: 'Pause', Parameters: { CallId: '', DurationInMilliseconds: 30_000 } }]),
            attributes,
          );
        case 'CALL_UPDATE_REQUESTED': {
          const next = argumentsOf(event).next;
          const actions: ChimeAction[] =
            next === 'speak'
              ? [play('2-user.wav'), record()]
              : [{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }];
          return respond(onLeg(event, actions), attributes);
        }
        default:
          return respond([], attributes);
      }
    });
    const phone = line(script.handler);

    const { transactionId } = await phone.createCall({
      fromNumber: FROM,
      toNumber: AGENT,
      arguments: { sessionId: 'sess_1', runId: 'run_1', turn: '0' },
    });
    await script.handled(is('ACTION_SUCCESSFUL', 'RecordAudio'));
    await phone.updateCall(transactionId, { next: 'speak' });
    await script.handled(is('ACTION_SUCCESSFUL', 'RecordAudio'), 2);
    await phone.updateCall(transactionId, { next: 'hangup' });
    await script.handled(is('HANGUP'));

    // The events: Chime's order and shapes, one invocation at a time, attributes carried.
    const events = script.events;
    expect(types(events)).toEqual([
      'NEW_OUTBOUND_CALL',
      'RINGING',
      'CALL_ANSWERED',
      'ACTION_SUCCESSFUL',
      'CALL_UPDATE_REQUESTED',
      'ACTION_INTERRUPTED',
      'ACTION_SUCCESSFUL',
      'CALL_UPDATE_REQUESTED',
      'ACTION_INTERRUPTED',
      'HANGUP',
    ]);
    expect(script.maxActive()).toBe(1);
    expect(events.map((e) => e.Sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events[0]!.CallDetails.TransactionAttributes).toBeUndefined();
    for (const e of events.slice(1))
      expect(e.CallDetails.TransactionAttributes).toEqual({ sessionId: 'sess_1', seen: String(e.Sequence - 1) });
    const [info] = phone.calls();
    expect(info).toMatchObject({ transactionId, state: 'ended', endedBy: 'application', toNumber: AGENT });
    const leg = {
      CallId: info!.callId,
      ParticipantTag: 'LEG-A',
      To: AGENT,
      From: FROM,
      Direction: 'Outbound',
      StartTimeInMilliseconds: expect.stringMatching(/^\d{13}$/),
    };
    expect(events[0]).toMatchObject({
      SchemaVersion: '1.0',
      ActionData: {
        Type: 'CallCreateRequest',
        Parameters: { Arguments: { sessionId: 'sess_1', runId: 'run_1', turn: '0' } },
      },
      CallDetails: { TransactionId: transactionId, Participants: [leg] },
    });
    expect(events[0]!.CallDetails.Participants[0]!.Status).toBeUndefined();
    expect(events[2]!.CallDetails.Participants).toEqual([{ ...leg, Status: 'Connected' }]);
    expect(events[3]!.ActionData).toMatchObject({
      Type: 'RecordAudio',
      Parameters: { SilenceDurationInSeconds: 1, SilenceThreshold: THRESHOLD },
      RecordingDestination: {
        Type: 'S3',
        BucketName: bucketName,
        Key: expect.stringMatching(`^${prefix}/answers/[^/]+\\.wav$`),
      },
    });
    expect(events[4]!.ActionData).toEqual({ Type: 'CallUpdateRequest', Parameters: { Arguments: { next: 'speak' } } });
    expect(events[5]!.ActionData).toMatchObject({ Type: 'Pause', Parameters: { DurationInMilliseconds: 30_000 } });
    expect(events[9]).toMatchObject({
      ActionData: {
        Type: 'Hangup',
        Parameters: { SipResponseCode: '0', CallId: info!.callId, ParticipantTag: 'LEG-A' },
      },
      CallDetails: { Participants: [{ ...leg, Status: 'Disconnected' }] },
    });
    await expect(phone.updateCall(transactionId, { next: 'speak' })).rejects.toMatchObject({
      name: 'NotFoundException',
    });

    // The agent's side: Twilio's messages, frames numbered and stamped every 20 ms.
    expect(agent.calls).toHaveLength(1);
    const { messages, heard, marks } = agent.calls[0]!;
    expect(messages[0]).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    const streamSid = messages[1].streamSid;
    expect(messages[1]).toEqual({
      event: 'start',
      sequenceNumber: '1',
      streamSid: expect.stringMatching(/^MZ[0-9a-f]{32}$/),
      start: {
        streamSid,
        accountSid: expect.stringMatching(/^AC[0-9a-f]{32}$/),
        callSid: expect.stringMatching(/^CA[0-9a-f]{32}$/),
        tracks: ['inbound'],
        customParameters: { sessionId: 'sess_1', runId: 'run_1' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    expect(messages.slice(1).map((m) => m.sequenceNumber)).toEqual(messages.slice(1).map((_, i) => String(i + 1)));
    const media = messages.filter((m) => m.event === 'media');
    media.forEach((m, i) => {
      expect(m).toMatchObject({
        streamSid,
        media: { track: 'inbound', chunk: String(i + 1), timestamp: String(i * 20) },
      });
      expect(Buffer.from(m.media.payload, 'base64')).toHaveLength(FRAME_SAMPLES);
    });
    await vi.waitFor(() =>
      expect(messages.at(-1)).toMatchObject({ event: 'stop', streamSid, stop: { callSid: messages[1].start.callSid } }),
    );
    expect(marks).toEqual(['reply-1', 'reply-2']);

    // It heard both utterances whole, sample for sample.
    const inbound = concatSamples(heard);
    const spoken = loudRuns(inbound);
    expect(spoken.map((r) => r.frames)).toEqual([20, 16]);
    for (const [run, utterance] of [
      [spoken[0]!, utterance1],
      [spoken[1]!, utterance2],
    ] as const)
      expect(inbound.subarray(run.start * FRAME_SAMPLES, (run.start + run.frames) * FRAME_SAMPLES)).toEqual(
        overTheLine(utterance),
      );

    // Each answer's recording starts when the utterance ends: its leading silence is the agent's delay.
    expect(info!.recordings).toHaveLength(2);
    for (const location of info!.recordings) {
      const answer = await readWav(location);
      expect(Math.abs(leadingSilenceMs(answer, THRESHOLD)! - REPLY_DELAY_MS)).toBeLessThanOrEqual(40);
      expect(loudRuns(answer).map((r) => r.frames)).toEqual([20]);
      // And it ended after a second of silence following the reply.
      expect(answer.length / FRAME_SAMPLES - (loudRuns(answer)[0]!.start + 20)).toBe(50);
    }

    // The call recording: stereo, the agent left and the line right, on one time line.
    expect(info!.callRecording).toEqual({
      Type: 'S3',
      BucketName: bucketName,
      Key: expect.stringMatching(
        `^${prefix}/rec/\\d{4}/\\d{2}/\\d{2}/\\d{4}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-\\d{3}_${transactionId}_${info!.callId}\\.wav$`,
      ),
    });
    const wav = new WaveFile(await s3Objects.readObject(bucketName, info!.callRecording!.Key));
    expect(wav.fmt).toMatchObject({ numChannels: 2, sampleRate: 8000, bitsPerSample: 16 });
    const [left, right] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
    const ours = loudRuns(right!);
    const theirs = loudRuns(left!);
    expect(ours.map((r) => r.frames)).toEqual([20, 16]);
    expect(theirs.map((r) => r.frames)).toEqual([20, 20]);
    for (let turn = 0; turn < 2; turn++) {
      const gapMs = (theirs[turn]!.start - (ours[turn]!.start + ours[turn]!.frames)) * 20;
      expect(Math.abs(gapMs - REPLY_DELAY_MS)).toBeLessThanOrEqual(40);
    }
  });

  it('barges in as Chime would: an update stops the RecordAudio under way, and its PlayAudio plays over the agent, the call recording keeping both', async () => {
    // An agent that talks for 3 s and does not stop when spoken over.
    const talker = await startAgent({ reply: tone(300, 3000, 6000) });
    try {
      const head: ChimeAction = {
        ...record(),
        Parameters: { ...record().Parameters, DurationInSeconds: 1 },
      } as ChimeAction;
      const script = scripted((event) => {
        switch (event.InvocationEventType) {
          case 'CALL_ANSWERED':
            return respond(
              onLeg(event, [
                {
                  Type: 'StartCallRecording',
                  Parameters: {
                    CallId: '',
                    Track: 'BOTH',
                    Destination: { Type: 'S3', Location: `${bucketName}/${prefix}/barge` },
                  },
                },
                play('1-user.wav'),
                head,
              ]),
            );
          case 'ACTION_SUCCESSFUL':
            // After the answer's head, the rest is recorded until the update comes.
            return respond(onLeg(event, event.ActionData?.Type === 'RecordAudio' ? [record()] : []));
          case 'CALL_UPDATE_REQUESTED':
            return respond(
              onLeg(
                event,
                argumentsOf(event).next === 'speak'
                  ? [play('2-user.wav'), record()]
                  : [{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }],
              ),
            );
          default:
            return respond([]);
        }
      });
      const phone = line(script.handler, { [NOBODY]: talker.url });
      const { transactionId } = await phone.createCall({ fromNumber: FROM, toNumber: NOBODY, arguments: {} });
      // The head: one second from the end of the utterance, the agent speaking in it.
      await script.handled(is('ACTION_SUCCESSFUL', 'RecordAudio'));
      await phone.updateCall(transactionId, { next: 'speak' });
      await script.handled(is('ACTION_SUCCESSFUL', 'RecordAudio'), 2);
      await phone.updateCall(transactionId, { next: 'hangup' });
      await script.handled(is('HANGUP'));

      // The rest's RecordAudio was stopped by the update and reported interrupted, its audio dropped.
      const after = types(script.events).slice(types(script.events).indexOf('CALL_UPDATE_REQUESTED'));
      expect(after.slice(0, 2)).toEqual(['CALL_UPDATE_REQUESTED', 'ACTION_INTERRUPTED']);
      expect(script.events.find(is('ACTION_INTERRUPTED'))!.ActionData).toMatchObject({ Type: 'RecordAudio' });
      const [info] = phone.calls();
      expect(info!.recordings).toHaveLength(2);
      const recordedHead = await readWav(info!.recordings[0]!);
      expect(recordedHead.length).toBe(8000);
      expect(loudRuns(recordedHead).length).toBeGreaterThan(0);

      // The call recording: our second utterance starts while the agent's channel is loud, and the agent talks on.
      const wav = new WaveFile(await s3Objects.readObject(bucketName, info!.callRecording!.Key));
      const [left, right] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
      const ours = loudRuns(right!);
      expect(ours.map((r) => r.frames)).toEqual([20, 16]);
      const theirs = loudRuns(left!);
      const cutIn = ours[1]!.start;
      const under = theirs.find((r) => r.start <= cutIn && cutIn < r.start + r.frames);
      expect(under, JSON.stringify({ theirs, cutIn })).toBeDefined();
      expect(under!.start + under!.frames).toBeGreaterThan(cutIn + 16);
    } finally {
      await talker.close();
    }
  });

  it('does not answer a number nobody serves, a refused connection, or an agent that never picks up', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const refusedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const silent = await neverAnswering();
    const silentPort = silent.port;
    // The second answer timeout armed (the silent agent's) expires; the first agent refuses at once.
    const fake = fakeClock({ expire: (_ms, index) => (index === 1 ? Promise.resolve() : undefined) });

    const script = scripted(() => respond([]));
    const phone = line(script.handler, {
      '+15550000201': `ws://127.0.0.1:${refusedPort}/media`,
      '+15550000202': `ws://127.0.0.1:${silentPort}/media`,
    });
    for (const toNumber of [NOBODY, '+15550000201', '+15550000202']) {
      const before = script.events.length;
      const { transactionId } = await phone.createCall({ fromNumber: FROM, toNumber, arguments: {} });
      await script.handled(is('HANGUP'), phone.calls().length);
      const events = script.events.slice(before);
      expect(types(events)).toEqual(['NEW_OUTBOUND_CALL', 'HANGUP']);
      expect(events[1]).toMatchObject({
        Sequence: 2,
        ActionData: { Type: 'Hangup', Parameters: { SipResponseCode: '480', ParticipantTag: 'LEG-A' } },
        CallDetails: { TransactionId: transactionId, Participants: [{ To: toNumber, Status: 'Disconnected' }] },
      });
      await expect(phone.updateCall(transactionId, {})).rejects.toMatchObject({ name: 'NotFoundException' });
    }
    expect(phone.calls().map((c) => c.endedBy)).toEqual(['no-answer', 'no-answer', 'no-answer']);
    // The numbers with an agent rang for up to the answer timeout.
    expect(fake.timeouts).toEqual([60_000, 60_000]);
    expect(agent.calls).toHaveLength(0);
    await silent.close();
  });

  it('stops ringing when the handler answers an update with Hangup: the agent never gets the call', async () => {
    const slow = await neverAnswering();
    const { sockets, closed } = slow;
    const fake = fakeClock();
    const script = scripted((event) =>
      respond(
        event.InvocationEventType === 'CALL_UPDATE_REQUESTED'
          ? argumentsOf(event).action === 'hangup'
            ? [{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }]
            : [play('1-user.wav')]
          : [],
      ),
    );
    const phone = line(script.handler, { '+15550000203': `ws://127.0.0.1:${slow.port}/media` });
    const { transactionId } = await phone.createCall({ fromNumber: FROM, toNumber: '+15550000203', arguments: {} });
    await vi.waitFor(() => expect(sockets).toHaveLength(1));

    // Any other action waits for an answer that has not come: the call keeps ringing.
    await phone.updateCall(transactionId, { action: 'play' });
    await script.handled(is('CALL_UPDATE_REQUESTED'));
    expect(phone.calls()[0]!.state).toBe('dialing');

    await phone.updateCall(transactionId, { action: 'hangup' });
    await script.handled(is('HANGUP'));
    // No RINGING or CALL_ANSWERED: the agent never answered.
    const updates = ['CALL_UPDATE_REQUESTED', 'CALL_UPDATE_REQUESTED'];
    expect(types(script.events)).toEqual(['NEW_OUTBOUND_CALL', ...updates, 'HANGUP']);
    expect(script.events[3]).toMatchObject({
      ActionData: { Type: 'Hangup', Parameters: { SipResponseCode: '0', ParticipantTag: 'LEG-A' } },
      CallDetails: { TransactionId: transactionId, Participants: [{ To: '+15550000203', Status: 'Disconnected' }] },
    });
    expect(phone.calls()[0]).toMatchObject({ state: 'ended', endedBy: 'application' });
    // The dial stopped: its connection is gone, and the answer timeout never had to expire.
    await vi.waitFor(() => expect(closed).toEqual(sockets));
    expect(fake.timeouts).toEqual([60_000]);
    await expect(phone.updateCall(transactionId, {})).rejects.toMatchObject({ name: 'NotFoundException' });
    await slow.close();
  });

  it('gives HANGUP when the agent hangs up, after delivering the answer it was recording', async () => {
    const hangingUp = await startAgent({ reply, hangUpAfterReply: true });
    const script = scripted((event) =>
      respond(event.InvocationEventType === 'CALL_ANSWERED' ? onLeg(event, [play('1-user.wav'), record(3)]) : []),
    );
    const phone = line(script.handler, { '+15550000300': hangingUp.url });
    const { transactionId } = await phone.createCall({ fromNumber: FROM, toNumber: '+15550000300', arguments: {} });
    await script.handled(is('HANGUP'));

    expect(types(script.events)).toEqual([
      'NEW_OUTBOUND_CALL',
      'RINGING',
      'CALL_ANSWERED',
      'ACTION_SUCCESSFUL',
      'HANGUP',
    ]);
    const [, , , recorded, hangup] = script.events;
    expect(recorded!.CallDetails.Participants[0]!.Status).toBe('Disconnected');
    const answer = await readWav(recorded!.ActionData!.RecordingDestination!);
    expect(Math.abs(leadingSilenceMs(answer, THRESHOLD)! - REPLY_DELAY_MS)).toBeLessThanOrEqual(40);
    expect(hangup).toMatchObject({
      ActionData: { Type: 'Hangup', Parameters: { SipResponseCode: '0', ParticipantTag: 'LEG-A' } },
      CallDetails: { Participants: [{ Status: 'Disconnected' }] },
    });
    expect(phone.calls()[0]).toMatchObject({ state: 'ended', endedBy: 'agent' });
    expect(hangingUp.calls[0]!.messages.some((m) => m.event === 'stop')).toBe(false);
    await expect(phone.updateCall(transactionId, { next: 'speak' })).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    await hangingUp.close();
  });

  it('reports a Pause that ends on its own as ACTION_SUCCESSFUL, and hangs up when told', async () => {
    const fake = fakeClock();
    const script = scripted((event) => {
      if (event.InvocationEventType === 'CALL_ANSWERED')
        return respond(onLeg(event, [{ Type: 'Pause', Parameters: { CallId: '', DurationInMilliseconds: 150 } }]));
      if (is('ACTION_SUCCESSFUL', 'Pause')(event))
        return respond([{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }]);
      return respond([]);
    });
    const phone = line(script.handler);
    await phone.createCall({ fromNumber: FROM, toNumber: AGENT, arguments: {} });
    await script.handled(is('HANGUP'));

    expect(types(script.events)).toEqual([
      'NEW_OUTBOUND_CALL',
      'RINGING',
      'CALL_ANSWERED',
      'ACTION_SUCCESSFUL',
      'HANGUP',
    ]);
    expect(script.events[3]!.ActionData).toEqual({
      Type: 'Pause',
      Parameters: { CallId: phone.calls()[0]!.callId, DurationInMilliseconds: 150 },
    });
    expect(fake.waits).toEqual([150]);
    await vi.waitFor(() => expect(agent.calls[0]!.messages.at(-1)).toMatchObject({ event: 'stop' }));
  });

  it('invokes the handler one event at a time, whatever arrives at once', async () => {
    const pause: ChimeAction = { Type: 'Pause', Parameters: { CallId: '', DurationInMilliseconds: 10_000 } };
    const script = scripted(async (event) => {
      await sleep(20);
      if (event.InvocationEventType === 'CALL_ANSWERED') return respond(onLeg(event, [pause]));
      if (event.InvocationEventType !== 'CALL_UPDATE_REQUESTED') return respond([]);
      const last = argumentsOf(event).n === '3';
      return respond(onLeg(event, [last ? { Type: 'Hangup', Parameters: { SipResponseCode: '0' } } : pause]));
    });
    const phone = line(script.handler);
    const { transactionId } = await phone.createCall({ fromNumber: FROM, toNumber: AGENT, arguments: {} });
    await script.handled(is('CALL_ANSWERED'));
    await Promise.all(['1', '2', '3'].map((n) => phone.updateCall(transactionId, { n })));
    await script.handled(is('HANGUP'));

    expect(script.maxActive()).toBe(1);
    expect(types(script.events)).toEqual([
      'NEW_OUTBOUND_CALL',
      'RINGING',
      'CALL_ANSWERED',
      'CALL_UPDATE_REQUESTED',
      'CALL_UPDATE_REQUESTED',
      'CALL_UPDATE_REQUESTED',
      'ACTION_INTERRUPTED',
      'ACTION_INTERRUPTED',
      'ACTION_INTERRUPTED',
      'HANGUP',
    ]);
    expect(script.events.map((e) => e.Sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('tells a handler whose answer is unusable with INVALID_LAMBDA_RESPONSE, and hangs up if it fails again', async () => {
    const script = scripted((event) => {
      const mode = event.CallDetails.TransactionAttributes?.mode;
      switch (event.InvocationEventType) {
        case 'NEW_OUTBOUND_CALL':
          return respond([], { mode: argumentsOf(event).mode! });
        case 'CALL_ANSWERED':
          if (mode === 'throws') throw new Error('the handler broke');
          return {
            SchemaVersion: '1.0',
            Actions: [{ Type: 'Speak', Parameters: { Text: 'hi' } }],
          } as unknown as ChimeResponse;
        case 'INVALID_LAMBDA_RESPONSE':
          if (mode === 'throws') throw new Error('broken again');
          return respond([{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }]);
        default:
          return respond([]);
      }
    });
    const phone = line(script.handler);
    for (const [n, mode] of ['invalid', 'throws'].entries()) {
      await phone.createCall({ fromNumber: FROM, toNumber: AGENT, arguments: { mode } });
      await script.handled(is('HANGUP'), n + 1);
    }

    const [invalid, throws] = phone.calls();
    const expected = ['NEW_OUTBOUND_CALL', 'RINGING', 'CALL_ANSWERED', 'INVALID_LAMBDA_RESPONSE', 'HANGUP'];
    // The unusable answer is reported, and the actions answered to the report are carried out.
    expect(types(invalid!.events)).toEqual(expected);
    expect(invalid!.events[3]).toMatchObject({
      ErrorType: 'InvalidActionType',
      ErrorMessage: expect.stringContaining('Speak'),
    });
    expect(invalid!.endedBy).toBe('application');
    // A handler that fails on the report too: the line hangs up.
    expect(types(throws!.events)).toEqual(expected);
    expect(throws!.events[3]).toMatchObject({ ErrorType: 'LambdaFunctionError' });
    expect(throws!.endedBy).toBe('error');
    expect(script.maxActive()).toBe(1);
  });
});

describe('LOCAL_PHONE_AGENTS', () => {
  it('maps E.164 numbers to ws:// and wss:// URLs; unset, no number answers', () => {
    expect(
      parseLocalPhoneAgents('{"+15550100": "ws://127.0.0.1:8765/media", "+442071838750": "wss://agent.example/ws"}'),
    ).toEqual({
      '+15550100': 'ws://127.0.0.1:8765/media',
      '+442071838750': 'wss://agent.example/ws',
    });
    expect(parseLocalPhoneAgents(undefined)).toEqual({});
    expect(parseLocalPhoneAgents('  ')).toEqual({});
  });

  it.each([
    ['{"+1555', /^LOCAL_PHONE_AGENTS is not valid JSON/],
    ['["ws://x"]', /^LOCAL_PHONE_AGENTS must map E\.164 numbers to ws:\/\/ or wss:\/\/ URLs/],
    ['{"5550100": "ws://127.0.0.1:1/"}', /^LOCAL_PHONE_AGENTS: "5550100" is not an E\.164 number/],
    [
      '{"+15550100": "http://127.0.0.1:1/"}',
      /^LOCAL_PHONE_AGENTS: the agent of \+15550100 must be a ws:\/\/ or wss:\/\/ URL/,
    ],
    ['{"+15550100": 7}', /^LOCAL_PHONE_AGENTS: the agent of \+15550100 must be a ws:\/\/ or wss:\/\/ URL/],
  ])('refuses %s with an error naming the variable', (value, message) => {
    expect(() => parseLocalPhoneAgents(value)).toThrow(message);
    expect(() => phoneLineFromEnv({ handler: async () => respond([]) }, { LOCAL_PHONE_AGENTS: value })).toThrow(
      message,
    );
  });

  it('builds a line from the environment that refuses numbers that are not E.164', async () => {
    const phone = phoneLineFromEnv(
      { handler: async () => respond([]) },
      { LOCAL_PHONE_AGENTS: JSON.stringify({ [AGENT]: agent.url }) },
    );
    lines.push(phone);
    await expect(phone.createCall({ fromNumber: FROM, toNumber: '5550100', arguments: {} })).rejects.toMatchObject({
      name: 'BadRequestException',
    });
  });
});
