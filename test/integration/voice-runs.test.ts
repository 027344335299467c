import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { localQueue, localRunQueue, localVoiceQueue } from '../../infra/local/queues.js';
import { runDeadLetters, startRunQueueConsumer, voiceDeadLetters } from '../../infra/local/run-queue.js';
import { createPhoneLine, type PhoneLine, type PhoneLineOptions, s3Objects } from '../../infra/local/phone-line.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { handler as callControl } from '../../functions/jobs/call-control.js';
import { handler as voiceJob } from '../../functions/jobs/voice-figures.js';
import { speechSegments } from '../../shared/voice/activity.js';
import { nearestRank } from '../../shared/voice/quality.js';
import { NO_RUN_VOICE } from '../../shared/domain/runs/run-voice.js';
import { useLocalTelephony } from '../../shared/telephony/telephony.js';
import { NotFoundError } from '../../shared/errors.js';
import type { CallControlHandler } from '../../shared/telephony/chime-events.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { readObjectBytes } from '../../shared/storage/s3.js';
import { decodeWav } from '../../shared/voice/audio.js';
import { CALL_NEWS_WINDOW_MS } from '../../shared/voice/line.js';
import { clock } from '../../shared/domain/common/clock.js';
import { PAUSE_MS } from '../../shared/domain/voice/call-control.js';
import wavefile from 'wavefile';
import { newTenant, type Client } from '../support/api.js';
import { createConnection, createProduct } from '../support/fixtures.js';
import { startLlmStub, type LlmStub, reply } from '../support/llm-server.js';
import { textToWav, wavToText } from '../../examples/voice/tone-codec.mjs';
import { startVoiceAgent } from '../../examples/voice/voice-agent.mjs';
import type { SQSEvent } from 'aws-lambda';

/**
 * Voice runs end to end on this machine: the run's steps synthesize each message through the LLM
 * stub's speech endpoint (text as tones, tone-codec.mjs), the local phone line plays it in real
 * time to the example Media Streams agent, which decodes the tones and answers with them after a
 * known delay; the call-control handler sends the recorded answer back to the session's step,
 * which transcribes it and records the turn. Every word goes through the real audio path.
 */

const NUMBER = '+15550100001';
const SILENT = '+15550100002';
const DELAY_MS = 600;

let llm: LlmStub;
let agent: Awaited<ReturnType<typeof startVoiceAgent>>;
let line: PhoneLine;
const measured: {
  heard: string;
  latencyMs: number;
  customParameters: Record<string, string>;
  interruptedAfterMs?: number;
}[] = [];
let consumer: ReturnType<typeof startRunQueueConsumer>;
/** The voice queue's consumer: each call's recording analysed once the call ends. */
let voiceConsumer: ReturnType<typeof startRunQueueConsumer>;

/** Installs a phone line to these agents (audio in the service's bucket), the call-control handler answering it. */
function useLine(
  agents: Record<string, string>,
  options: Partial<Pick<PhoneLineOptions, 'handler' | 'answerTimeoutMs'>> = {},
): void {
  line = createPhoneLine({ handler: (event) => callControl(event), ...s3Objects, ...options, agents });
  useLocalTelephony(line);
}

beforeAll(async () => {
  llm = await startLlmStub();
  agent = await startVoiceAgent({ delayMs: DELAY_MS, onAnswer: (a) => measured.push(a) });
});
afterAll(async () => {
  setLlmConfig({ baseUrl: undefined });
  await agent.close();
  await llm.close();
});
beforeEach(() => {
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  runDeadLetters.length = 0;
  measured.length = 0;
  llm.speechRequests.length = 0;
  llm.transcriptionRequests.length = 0;
  llm.setSpeechHandler((req) => textToWav(req.input));
  llm.setTranscriptionHandler((req) => ({ text: wavToText(req.file) }));
  setLlmConfig({ baseUrl: llm.url, timeoutMs: 5000, backoffMs: 10, maxAttempts: 2 });
  useLine({ [NUMBER]: agent.url, [SILENT]: 'ws://127.0.0.1:9' }, { answerTimeoutMs: 3_000 });
  consumer = startRunQueueConsumer((event) => runner(event as SQSEvent), { concurrency: 4 });
  localVoiceQueue.messages.length = 0;
  voiceDeadLetters.length = 0;
  voiceConsumer = startRunQueueConsumer((event) => voiceJob(event as SQSEvent), {
    concurrency: 1,
    queue: { queue: localVoiceQueue, deadLetters: voiceDeadLetters, now: () => Date.now(), arnName: 'voice-jobs' },
  });
});
afterEach(async () => {
  await voiceConsumer.stop();
  await consumer.stop();
  useLocalTelephony(undefined);
  await line.close();
});

async function setup(
  options: { number?: string; csv?: string; agentSpeaksFirst?: boolean; type?: 'QUALITY' | 'SCENARIOS' } = {},
) {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const phone = (
    await t.api.post('/phoneConnections', {
      productId: product.id,
      name: 'support line',
      phoneNumber: options.number ?? NUMBER,
      ...(options.agentSpeaksFirst ? { agentSpeaksFirst: true } : {}),
    })
  ).body;
  const version = (await t.api.post('/versions', { productId: product.id, name: 'voice', phoneConnectionId: phone.id }))
    .body;
  expect(version.phoneConnectionId).toBe(phone.id);
  const presigned = (
    await t.api.get('/storage/generate-put-presigned-url', { fileName: 'cases.csv', contentType: 'text/csv' })
  ).body;
  await fetch(presigned.url, {
    method: 'PUT',
    body: options.csv ?? 'input,expected_output\nwhere is my order,where is my order\nhello there,hello there\n',
    headers: { 'content-type': 'text/csv' },
  });
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: 'calls',
      type: options.type ?? 'QUALITY',
      uri: presigned.uri,
      ...(options.type === 'SCENARIOS' ? { strategies: ['spoken'] } : {}),
    })
  ).body;
  expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
  return { ...t, product, phone, version, test };
}

/** Starts a run of the setup's test on its version, scored for a non-empty output. */
async function startRun(t: Awaited<ReturnType<typeof setup>>): Promise<{ id: string }> {
  const created = await t.api.post('/runs', {
    versionId: t.version.id,
    testId: t.test.id,
    metricIds: ['met_non_empty_output'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** A session's voice figures, once its call's recording was analysed. */
async function figuresOf(api: Client, sessionId: string) {
  await expect
    .poll(async () => (await api.get(`/sessions/${sessionId}`)).body.voice, { timeout: 30_000 })
    .not.toBeNull();
  return (await api.get(`/sessions/${sessionId}`)).body.voice;
}

async function finished(api: Client, runId: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = (await api.get(`/runs/${runId}`)).body;
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status}: ${JSON.stringify(run.progress)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('voice runs', () => {
  it('dials the agent, speaks each case, records and transcribes its answers, and scores the transcript', async () => {
    const t = await setup();
    const created = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_text_similarity', 'met_non_empty_output'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ channel: 'PHONE', voice: NO_RUN_VOICE });
    const run = await finished(t.api, created.body.id);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { total: 2, completed: 2, failed: 0 } });
    expect(run.metrics.find((m: any) => m.metricId === 'met_text_similarity')).toMatchObject({
      evaluated: 2,
      score: 1,
    });

    const sessions = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
    expect(sessions).toHaveLength(2);
    const latencies: number[] = [];
    const voices: any[] = [];
    for (const session of sessions) {
      expect(session).toMatchObject({ channel: 'PHONE', status: 'COMPLETED', stoppingReason: 'completed' });
      const turns = (await t.api.get('/inferenceResults', { sessionIds: session.id })).body as any[];
      expect(turns).toHaveLength(1);
      const turn = turns[0];
      expect(turn.output).toBe(turn.input);
      const heard = measured.find((m) => m.heard === turn.input && m.customParameters.sessionId === session.id);
      expect(heard, JSON.stringify(measured)).toBeDefined();
      // The latency the service measured is the agent's own, within three frames. The service
      // counts the line's frames; the agent times from when it read the utterance's last frame,
      // and in this one process a busy event loop can read that frame a frame or two late.
      expect(Math.abs(turn.latencyMs - heard!.latencyMs)).toBeLessThanOrEqual(60);
      latencies.push(turn.latencyMs);
      // Both utterances are stored, and say what the turn says.
      const key = (uri: string) => uri.replace(/^s3:\/\/[^/]+\//, '');
      expect(turn.metadata.userAudioUri).toMatch(new RegExp(`/voice/${session.id}/1-user\\.wav$`));
      expect(wavToText((await readObjectBytes(key(turn.metadata.userAudioUri)))!)).toBe(turn.input);
      const answer = (await readObjectBytes(key(turn.metadata.agentAudioUri)))!;
      expect(wavToText(answer)).toBe(turn.output);
      // The call recording: stereo, the agent on the left, the service on the right.
      await expect.poll(async () => (await t.api.get(`/sessions/${session.id}`)).body.recordingUri).toMatch(/^s3:\/\//);
      const recordingUri = (await t.api.get(`/sessions/${session.id}`)).body.recordingUri as string;
      const recording = new wavefile.WaveFile((await readObjectBytes(key(recordingUri)))!);
      expect((recording.fmt as { numChannels: number }).numChannels).toBe(2);
      expect(wavToText(recording.toBuffer(), { channel: 1 })).toBe(turn.input);
      expect(wavToText(recording.toBuffer(), { channel: 0 })).toBe(turn.output);
      expect(decodeWav(answer).length).toBeGreaterThan(0);
      // Its voice figures, from the call recording once it ended: the turn's latency; the utterance
      // (right) and the answer (left) as speech, each as long as in its own file (within a frame or
      // two: the line places audio on 20 ms frames); one after the other, so no overlap, no
      // interruption, and no silence of 3 s.
      await expect
        .poll(async () => (await t.api.get(`/sessions/${session.id}`)).body.voice, { timeout: 20_000 })
        .not.toBeNull();
      const { voice, voiceError } = (await t.api.get(`/sessions/${session.id}`)).body;
      expect(voiceError).toBeNull();
      const speechMs = (wav: Uint8Array) =>
        speechSegments(decodeWav(wav), 8000).reduce((ms, s) => ms + s.endMs - s.startMs, 0);
      const utterance = (await readObjectBytes(key(turn.metadata.userAudioUri)))!;
      expect(voice.responseLatencyMs).toEqual([turn.latencyMs]);
      expect(Math.abs(voice.agentSpeechMs - speechMs(answer))).toBeLessThanOrEqual(40);
      expect(Math.abs(voice.userSpeechMs - speechMs(utterance))).toBeLessThanOrEqual(40);
      expect(voice.talkRatio).toBe(voice.agentSpeechMs / (voice.agentSpeechMs + voice.userSpeechMs));
      expect(voice).toMatchObject({ overlapMs: 0, agentInterruptions: 0, deadAirMs: 0 });
      expect(voice.segments.user).toHaveLength(1);
      expect(voice.segments.agent).toHaveLength(1);
      // The answer starts after the utterance ends, by the turn's latency within a frame or two.
      const gap = voice.segments.agent[0].startMs - voice.segments.user[0].endMs;
      expect(Math.abs(gap - turn.latencyMs)).toBeLessThanOrEqual(40);
      voices.push(voice);
    }
    // The run's figures, brought up to date as each recording was analysed (a call ends after its
    // session is counted): nearest-rank p50 and p95 over the sessions, latency over every answer.
    await expect
      .poll(async () => (await t.api.get(`/runs/${run.id}`)).body.voice.agentSpeechMs, { timeout: 20_000 })
      .not.toBeNull();
    const spread = (values: number[]) => ({ p50: nearestRank(values, 0.5), p95: nearestRank(values, 0.95) });
    latencies.sort((a, b) => a - b);
    expect((await t.api.get(`/runs/${run.id}`)).body.voice).toEqual({
      responseLatencyMs: { p50: latencies[0], p95: latencies[1] },
      agentSpeechMs: spread(voices.map((v) => v.agentSpeechMs)),
      userSpeechMs: spread(voices.map((v) => v.userSpeechMs)),
      talkRatio: spread(voices.map((v) => v.talkRatio)),
      overlapMs: { p50: 0, p95: 0 },
      agentInterruptions: { p50: 0, p95: 0 },
      deadAirMs: { p50: 0, p95: 0 },
      interruptionRate: 0,
      bargeInRecovery: null,
    });
    expect(voiceDeadLetters).toEqual([]);
    // Every word was spoken and heard through the speech endpoints, each charged.
    expect(llm.speechRequests).toHaveLength(2);
    expect(llm.transcriptionRequests).toHaveLength(2);
  }, 90_000);

  it('every job and every handler invocation delivered twice: one call per session, each turn recorded once', async () => {
    await consumer.stop();
    consumer = startRunQueueConsumer((event) => runner(event as SQSEvent), { concurrency: 4, duplicate: true });
    await line.close();
    useLine(
      { [NUMBER]: agent.url },
      {
        // Chime may invoke the handler again for the same event: each invocation is made twice.
        handler: async (event) => {
          await callControl(event);
          return callControl(event);
        },
      },
    );
    const t = await setup();
    const created = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_text_similarity'],
    });
    const run = await finished(t.api, created.body.id);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { total: 2, completed: 2 } });
    expect(run.metrics[0]).toMatchObject({ evaluated: 2, score: 1 });
    for (const session of (await t.api.get('/sessions', { runIds: run.id })).body as any[]) {
      const turns = (await t.api.get('/inferenceResults', { sessionIds: session.id })).body as any[];
      expect(turns.map((x) => x.output)).toEqual([turns[0].input]);
      // A second delivery's call, if one was placed, was hung up: none is left under way.
      await expect
        .poll(() => line.calls().filter((c) => c.arguments.sessionId === session.id && c.state !== 'ended').length, {
          timeout: 20_000,
        })
        .toBe(0);
    }
  }, 90_000);

  it('a number that does not answer fails its sessions with no_answer', async () => {
    const t = await setup({ number: SILENT, csv: 'input,expected_output\nhello,hello\n' });
    const created = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
    });
    const run = await finished(t.api, created.body.id);
    expect(run).toMatchObject({ status: 'FAILED', progress: { failed: 1 } });
    const [session] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
    expect(session).toMatchObject({ status: 'FAILED', stoppingReason: 'no_answer', channel: 'PHONE' });
    expect(run.voice).toEqual({ ...NO_RUN_VOICE, bargeInRecovery: null });
  }, 60_000);

  it('an answer without speech ends the session agent_empty_response; a failed transcription fails it naming the step', async () => {
    const mute = await startVoiceAgent({ delayMs: 60_000 });
    const saved = process.env.VOICE_ANSWER_SECONDS;
    process.env.VOICE_ANSWER_SECONDS = '2';
    await line.close();
    useLine({ [NUMBER]: agent.url, [SILENT]: mute.url });
    try {
      const t = await setup({ number: SILENT, csv: 'input,expected_output\nhello,hello\n' });
      const run = await finished(
        t.api,
        (await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id, metricIds: ['met_non_empty_output'] }))
          .body.id,
      );
      const [quiet] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
      expect(quiet).toMatchObject({ status: 'COMPLETED', stoppingReason: 'agent_empty_response', turnCount: 1 });
      const [turn] = (await t.api.get('/inferenceResults', { sessionIds: quiet.id })).body as any[];
      expect(turn).toMatchObject({ input: 'hello', output: '', latencyMs: null });
      // Nothing to transcribe: no transcription was asked for.
      expect(llm.transcriptionRequests).toHaveLength(0);

      llm.setTranscriptionHandler(() => reply.raw(500, 'transcriber down'));
      const u = await setup({ csv: 'input,expected_output\nhello,hello\n' });
      const failed = await finished(
        u.api,
        (await u.api.post('/runs', { versionId: u.version.id, testId: u.test.id, metricIds: ['met_non_empty_output'] }))
          .body.id,
      );
      const [session] = (await u.api.get('/sessions', { runIds: failed.id })).body as any[];
      expect(session.status).toBe('FAILED');
      expect(session.error).toMatch(/^transcription failed at turn 1: /);
    } finally {
      if (saved === undefined) delete process.env.VOICE_ANSWER_SECONDS;
      else process.env.VOICE_ANSWER_SECONDS = saved;
      await mute.close();
    }
  }, 60_000);

  it('a failed speech call fails the session naming the step', async () => {
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    llm.setSpeechHandler(() => reply.raw(500, 'speech engine down'));
    const run = await finished(t.api, (await startRun(t)).id);
    expect(run.status).toBe('FAILED');
    const [session] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
    expect(session.status).toBe('FAILED');
    expect(session.error).toMatch(/^speech synthesis failed before turn 1: /);
  }, 60_000);
});

describe('voice runs: a call that gives no news', () => {
  afterEach(() => vi.restoreAllMocks());

  /** The run queue's deadline jobs for a session, as queued. */
  const deadlines = (sessionId?: string) =>
    localRunQueue.messages.filter((m) => {
      const job = JSON.parse(m.body);
      return job.voice?.event === 'deadline' && (!sessionId || job.sessionId === sessionId);
    });

  /** A call-control handler that never passes the recorded answer on: the session waits on its call. */
  const deafHandler: CallControlHandler = async (event: any) =>
    event.InvocationEventType === 'ACTION_SUCCESSFUL' && event.ActionData?.Type === 'RecordAudio'
      ? {
          SchemaVersion: '1.0' as const,
          Actions: [
            {
              Type: 'Pause',
              Parameters: { CallId: event.CallDetails.Participants[0].CallId, DurationInMilliseconds: PAUSE_MS },
            },
          ],
        }
      : callControl(event);

  /** Makes queued messages visible now, and wakes the consumer (it sleeps until the next one it knew of). */
  const deliverNow = (messages: { visibleAt: number }[]) => {
    for (const m of messages) m.visibleAt = 0;
    localRunQueue.onEnqueue?.();
  };

  it('fails the session at its deadline and hangs up; a deadline delivered early waits on, one delivered twice changes nothing more', async () => {
    // The handler never passes the recorded answer on (as when it cannot reach the run queue):
    // the session hears nothing more of its call.
    await line.close();
    useLine({ [NUMBER]: agent.url }, { handler: deafHandler });
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    const created = await startRun(t);
    // The agent answered; the session's step put its deadline on the queue when it placed the call.
    await expect.poll(() => measured.length, { timeout: 30_000 }).toBe(1);
    const [first] = deadlines();
    expect(first).toBeDefined();
    const job = JSON.parse(first!.body);
    // Held by the queue as long as SQS can (15 minutes), due 15 minutes after the utterance played.
    expect(first!.visibleAt - Date.now()).toBeGreaterThan(CALL_NEWS_WINDOW_MS - 60_000);
    expect(job.voice).toMatchObject({ event: 'deadline', turn: 1, seq: 0 });
    expect(job.voice.dueAt - Date.now()).toBeGreaterThan(CALL_NEWS_WINDOW_MS - 60_000);
    const [session] = (await t.api.get('/sessions', { runIds: created.id })).body as any[];
    expect(session.id).toBe(job.sessionId);

    // Delivered before it is due: it goes back on the queue, and the session waits on.
    deliverNow([first!]);
    await expect.poll(() => deadlines().some((m) => m.id !== first!.id), { timeout: 10_000 }).toBe(true);
    expect((await t.api.get(`/runs/${created.id}`)).body.status).toBe('RUNNING');

    // Past it, delivered twice: the session fails naming what was missing, once, and the call is hung up.
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(job.voice.dueAt + 1000));
    localRunQueue.messages.push({ ...deadlines()[0]!, id: 'deadline-again' });
    deliverNow(deadlines());
    const run = await finished(t.api, created.id);
    expect(run).toMatchObject({ status: 'FAILED', progress: { total: 1, failed: 1 } });
    const failed = (await t.api.get(`/sessions/${session.id}`)).body;
    expect(failed).toMatchObject({ status: 'FAILED', stoppingReason: null, turnCount: 0 });
    expect(failed.error).toBe(
      "PHONE: no news of the call within 15 minutes of turn 1's utterance (no answer recorded, no hang-up reported)",
    );
    await expect
      .poll(() => line.calls().filter((c) => c.arguments.sessionId === session.id && c.state !== 'ended').length, {
        timeout: 20_000,
      })
      .toBe(0);
    expect(deadlines(session.id)).toHaveLength(0);
    expect(runDeadLetters).toHaveLength(0);
  }, 90_000);

  it('a call lost with the phone line (the service restarted) fails its session when its step is delivered again', async () => {
    await line.close();
    useLine({ [NUMBER]: agent.url }, { handler: deafHandler });
    const t = await setup({ csv: 'input,expected_output\nhello,hello\ngood morning,good morning\n' });
    const created = await startRun(t);
    // Both calls were answered and both sessions wait on them, their deadlines queued.
    await expect.poll(() => measured.length, { timeout: 30_000 }).toBe(2);
    await expect.poll(() => deadlines().length, { timeout: 10_000 }).toBe(2);
    const [first, second] = deadlines().map((m) => ({ message: m, job: JSON.parse(m.body) }));

    // The service restarts: the new phone line knows none of the calls placed before.
    await line.close();
    useLine({ [NUMBER]: agent.url });
    // One session's step is delivered again (the job that was in flight), the other's deadline comes early.
    const { voice: _voice, ...step } = first!.job;
    localRunQueue.messages.push({ id: 'step-again', body: JSON.stringify(step), receiveCount: 1, visibleAt: 0 });
    deliverNow([second!.message]);

    const run = await finished(t.api, created.id);
    expect(run).toMatchObject({ status: 'FAILED', progress: { total: 2, failed: 2 } });
    for (const session of (await t.api.get('/sessions', { runIds: run.id })).body as any[]) {
      expect(session).toMatchObject({
        status: 'FAILED',
        stoppingReason: null,
        turnCount: 0,
        error: 'the call was lost: the service restarted',
      });
    }
    // The new line placed no call: nothing was dialed again.
    expect(line.calls()).toHaveLength(0);
    expect(runDeadLetters).toHaveLength(0);
  }, 90_000);

  it('on AWS, a call Chime no longer knows (NotFound to an update) fails its session the same way at its deadline', async () => {
    await line.close();
    useLine({ [NUMBER]: agent.url }, { handler: deafHandler });
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    const created = await startRun(t);
    await expect.poll(() => measured.length, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => deadlines().length, { timeout: 10_000 }).toBe(1);
    const [deadline] = deadlines();
    // Chime's client (shared/telephony/chime.ts): no record to ask, and NotFoundError for a call it no longer knows.
    await line.close();
    const updates: Record<string, string>[] = [];
    useLocalTelephony({
      createCall: () => Promise.reject(new Error('no call is placed')),
      updateCall: async (transactionId, args) => {
        updates.push(args);
        throw new NotFoundError(`call ${transactionId} is no longer under way`);
      },
    });
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(JSON.parse(deadline!.body).voice.dueAt + 1000));
    deliverNow([deadline!]);
    const run = await finished(t.api, created.id);
    expect(run).toMatchObject({ status: 'FAILED', progress: { failed: 1 } });
    const [session] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
    expect(session).toMatchObject({ status: 'FAILED', error: 'the call was lost: the service restarted' });
    // Asked with the turn's own update (which the call-control handler ignores), then hung up.
    expect(updates[0]).toMatchObject({ action: 'play', turn: '1', seq: '0' });
    expect(updates.at(-1)).toEqual({ action: 'hangup' });
  }, 90_000);

  it('a deadline that finds its session answered changes nothing', async () => {
    const t = await setup({ csv: 'input,expected_output\nhello,hello\n' });
    const run = await finished(t.api, (await startRun(t)).id);
    expect(run.status).toBe('COMPLETED');
    const [session] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
    // The finished session's deadline is still on the queue: due now, it finds the turn answered.
    const queued = deadlines(session.id);
    expect(queued.length).toBeGreaterThan(0);
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(JSON.parse(queued[0]!.body).voice.dueAt + 1000));
    deliverNow(queued);
    await expect.poll(() => deadlines(session.id).length, { timeout: 10_000 }).toBe(0);
    expect((await t.api.get(`/sessions/${session.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      stoppingReason: 'completed',
      turnCount: 1,
      error: null,
    });
    expect((await t.api.get(`/runs/${run.id}`)).body).toMatchObject({ status: 'COMPLETED', progress: run.progress });
    expect(runDeadLetters).toHaveLength(0);
  }, 60_000);
});

describe('voice runs: conversations', () => {
  /** The simulated user asks `asks` things, one per turn, then stops. */
  const simulatedUser = (asks: number) =>
    llm.setHandler((req) => {
      const asked = new Set(
        req.messages
          .map((m) => m.content)
          .join('\n')
          .match(/question number \w+/g) ?? [],
      ).size;
      const words = ['one', 'two', 'three', 'four'];
      return asked >= asks
        ? { stop: true, reason: 'goal_achieved', message: '' }
        : { stop: false, reason: 'asking', message: `question number ${words[asked]}` };
    });

  /** The run finished, its one session COMPLETED after the simulated user's two questions, each heard and transcribed. */
  async function twoQuestionsAsked(api: Client, runId: string) {
    const run = await finished(api, runId);
    expect(run.status).toBe('COMPLETED');
    const [session] = (await api.get('/sessions', { runIds: run.id })).body as any[];
    expect(session).toMatchObject({ status: 'COMPLETED', stoppingReason: 'goal_achieved', turnCount: 2 });
    const turns = (await api.get('/inferenceResults', { sessionIds: session.id })).body as any[];
    expect(turns.map((x) => [x.input, x.output])).toEqual([
      ['question number one', 'question number one'],
      ['question number two', 'question number two'],
    ]);
    return { session, turns };
  }

  it('SCENARIOS: the simulated user speaks turn after turn on one call, each answer transcribed, until it stops', async () => {
    simulatedUser(2);
    const t = await setup({ type: 'SCENARIOS', csv: 'goal,user_persona,max_iterations\nget a refund,caller,4\n' });
    const created = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
    });
    const { session, turns } = await twoQuestionsAsked(t.api, created.body.id);
    // One call carried both turns.
    expect(line.calls().filter((c) => c.arguments.sessionId === session.id)).toHaveLength(1);
    // Its voice figures: each turn's latency, two utterances and two answers on the call recording.
    const voice = await figuresOf(t.api, session.id);
    expect(voice.responseLatencyMs).toEqual(turns.map((x) => x.latencyMs));
    expect(voice.segments.user).toHaveLength(2);
    expect(voice.segments.agent).toHaveLength(2);
    expect(voice).toMatchObject({ overlapMs: 0, agentInterruptions: 0 });
    for (const turn of turns) expect(turn.metadata.userAudioUri).toMatch(new RegExp(`/${turn.index}-user\\.wav$`));
  }, 90_000);

  it('a step that stopped between writing a later turn and updating the call: its redelivery sends the update, once heard', async () => {
    simulatedUser(2);
    // The second turn's update fails once after the step wrote it (as if its job stopped there),
    // and every update that does go out is sent twice (a delivery's retry racing another's).
    let failed = 0;
    const plays: string[] = [];
    useLocalTelephony({
      createCall: (call) => line.createCall(call),
      updateCall: async (transactionId, args) => {
        if (args.action === 'play' && failed === 0) {
          failed++;
          throw new Error('socket hang up');
        }
        if (args.action === 'play') plays.push(args.turn!);
        await line.updateCall(transactionId, args);
        if (args.action === 'play') await line.updateCall(transactionId, args);
      },
    });
    const t = await setup({ type: 'SCENARIOS', csv: 'goal,user_persona,max_iterations\nget a refund,caller,4\n' });
    const created = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
    });
    await twoQuestionsAsked(t.api, created.body.id);
    expect(failed).toBe(1);
    expect(plays).toEqual(['2']);
    // The second message was heard once: the repeated update did not play it again.
    expect(measured.filter((m) => m.heard === 'question number two')).toHaveLength(1);
  }, 90_000);

  it('an agent that hangs up after answering ends the session COMPLETED with hangup; before answering, FAILED', async () => {
    simulatedUser(4);
    const brief = await startVoiceAgent({ delayMs: DELAY_MS, hangUpAfter: 1 });
    const rude = await startVoiceAgent({ delayMs: DELAY_MS, hangUpAfter: 0 });
    await line.close();
    useLine({ [NUMBER]: brief.url, [SILENT]: rude.url });
    try {
      const t = await setup({ type: 'SCENARIOS', csv: 'goal,user_persona,max_iterations\nget a refund,caller,4\n' });
      const run = await finished(
        t.api,
        (await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id, metricIds: ['met_non_empty_output'] }))
          .body.id,
      );
      const [session] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
      expect(session).toMatchObject({ status: 'COMPLETED', stoppingReason: 'hangup', turnCount: 1 });
      // The hang-up came before its turn was recorded: the figures waited for it, and take its latency.
      const [turn] = (await t.api.get('/inferenceResults', { sessionIds: session.id })).body as any[];
      expect((await figuresOf(t.api, session.id)).responseLatencyMs).toEqual([turn.latencyMs]);
      const u = await setup({ number: SILENT, csv: 'input,expected_output\nhello,hello\n' });
      const failed = await finished(
        u.api,
        (await u.api.post('/runs', { versionId: u.version.id, testId: u.test.id, metricIds: ['met_non_empty_output'] }))
          .body.id,
      );
      const [early] = (await u.api.get('/sessions', { runIds: failed.id })).body as any[];
      expect(early).toMatchObject({ status: 'FAILED', stoppingReason: 'hangup' });
      expect(early.error).toMatch(/hung up before answering/);
    } finally {
      await brief.close();
      await rude.close();
    }
  }, 90_000);
});

describe('voice runs: barge-in', () => {
  /** What the agents say to anything: 4.4 s of tones (the stubborn one 7 s), so a barge-in finds them talking. */
  const LONG = 'thank you for calling, let me look that up';
  const TALKER = '+15550100003';
  const STUBBORN = '+15550100004';
  let talker: Awaited<ReturnType<typeof startVoiceAgent>>;
  let stubborn: Awaited<ReturnType<typeof startVoiceAgent>>;

  beforeAll(async () => {
    talker = await startVoiceAgent({ delayMs: DELAY_MS, say: LONG, onAnswer: (a) => measured.push(a) });
    stubborn = await startVoiceAgent({
      delayMs: DELAY_MS,
      say: `${LONG} for you, one moment please`,
      bargeIn: false,
      onAnswer: () => undefined,
    });
  });
  afterAll(async () => {
    await talker.close();
    await stubborn.close();
  });
  beforeEach(async () => {
    await line.close();
    useLine({ [TALKER]: talker.url, [STUBBORN]: stubborn.url });
    // The simulated user asks one question per turn, never stopping on its own.
    llm.setHandler((req) => {
      const asked = new Set(
        req.messages
          .map((m) => m.content)
          .join('\n')
          .match(/question number \w+/g) ?? [],
      ).size;
      return { stop: false, reason: 'asking', message: `question number ${['one', 'two', 'three', 'four'][asked]}` };
    });
  });

  /** The barged-in turns of a finished run's one session. */
  async function bargedIn(api: Client, runId: string) {
    const run = await finished(api, runId, 120_000);
    const [session] = (await api.get('/sessions', { runIds: run.id })).body as any[];
    const turns = (await api.get('/inferenceResults', { sessionIds: session.id })).body as any[];
    return { run, session, turns, barged: turns.filter((t) => t.metadata.bargeIn) };
  }

  it("an agent that stops when spoken over recovers: each turn after the first but the last is cut into, and the run's recovery says so", async () => {
    const t = await setup({
      number: TALKER,
      type: 'SCENARIOS',
      csv: 'goal,user_persona,max_iterations\nget a refund,caller,4\n',
    });
    const created = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
      bargeInAfterMs: 500,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ bargeInAfterMs: 500, voice: { bargeInRecovery: null } });
    const { run, session, turns, barged } = await bargedIn(t.api, created.body.id);
    expect(session).toMatchObject({ status: 'COMPLETED', stoppingReason: 'max_iterations', turnCount: 4 });
    // Turns 2 and 3 were cut into by the next question; the first and the last were heard whole.
    expect(barged.map((x) => x.index)).toEqual([2, 3]);
    expect([turns[0].output, turns[3].output]).toEqual([LONG, LONG]);
    for (const turn of barged) {
      // What the agent said before the interruption: the start of its answer (the last symbol may be cut).
      expect(turn.output.length).toBeGreaterThan(0);
      expect(LONG.startsWith(turn.output.slice(0, -1))).toBe(true);
      const { atMs, agentStoppedAfterMs } = turn.metadata.bargeIn;
      expect(atMs).toBeGreaterThan(0);
      // It stopped within a second of hearing the caller (it stops after 100 ms of speech).
      expect(agentStoppedAfterMs).not.toBeNull();
      expect(agentStoppedAfterMs).toBeLessThanOrEqual(1000);
    }
    // The agent itself saw each answer cut short.
    expect(measured.filter((m) => m.customParameters.sessionId === session.id && m.interruptedAfterMs)).toHaveLength(2);
    const stops = barged.map((x) => x.metadata.bargeIn.agentStoppedAfterMs).sort((a, b) => a - b);
    expect(run.voice.bargeInRecovery).toEqual({ rate: 1, p50: stops[0], p95: stops[1] });
  }, 150_000);

  it("an agent that talks on does not recover; a case's context sets the barge-in without the run's", async () => {
    const t = await setup({
      number: STUBBORN,
      type: 'SCENARIOS',
      csv: 'goal,user_persona,context,max_iterations\nget a refund,caller,"{""bargeInAfterMs"": 500}",3\n',
    });
    const created = await startRun(t);
    const { run, barged } = await bargedIn(t.api, created.id);
    expect(barged.map((x) => x.index)).toEqual([2]);
    // It talked on over the caller: still talking 3 s later (null), or at least not stopped within a second.
    const { agentStoppedAfterMs } = barged[0].metadata.bargeIn;
    if (agentStoppedAfterMs !== null) expect(agentStoppedAfterMs).toBeGreaterThan(1000);
    expect(run.voice.bargeInRecovery).toMatchObject({ rate: 0, p95: agentStoppedAfterMs });
  }, 150_000);

  it('refuses a barge-in out of bounds or on an HTTP run; a case whose value breaks the rule fails naming it', async () => {
    const t = await setup({
      type: 'SCENARIOS',
      csv: 'goal,user_persona,context,max_iterations\nget a refund,caller,"{""bargeInAfterMs"": 50}",3\n',
    });
    // A version that also has a CONVERSATION endpoint: its runs are HTTP unless they ask for PHONE.
    const connection = await createConnection(t.api, t.product.id);
    const both = (
      await t.api.post('/versions', {
        productId: t.product.id,
        name: 'both',
        phoneConnectionId: t.phone.id,
        conversationEndpointConnectionId: connection.id,
      })
    ).body;
    for (const [body, message] of [
      [{ bargeInAfterMs: 99 }, 'bargeInAfterMs must be at least 100'],
      [{ bargeInAfterMs: 10_001 }, 'bargeInAfterMs must be at most 10000'],
      [{ bargeInAfterMs: 500.5 }, 'bargeInAfterMs must be an integer'],
      [{ bargeInAfterMs: 500, versionId: both.id }, /^bargeInAfterMs: barge-in .* this run's channel is HTTP/],
      [{ bargeInAfterMs: 500, versionId: both.id, channel: 'HTTP' }, /^bargeInAfterMs: .* channel is HTTP/],
    ] as const) {
      const refused = await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id, ...body });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.message).toMatch(message);
    }
    const phone = await t.api.post('/runs', {
      versionId: both.id,
      testId: t.test.id,
      channel: 'PHONE',
      bargeInAfterMs: 500,
      metricIds: ['met_non_empty_output'],
    });
    expect(phone.status, JSON.stringify(phone.body)).toBe(201);
    // The case's own value (50) breaks the rule: its session fails before anything is dialed.
    for (const started of [phone.body, await startRun(t)]) {
      const run = await finished(t.api, started.id);
      const [session] = (await t.api.get('/sessions', { runIds: run.id })).body as any[];
      expect(session).toMatchObject({ status: 'FAILED', turnCount: 0 });
      expect(session.error).toMatch(
        /^PHONE: context\.bargeInAfterMs of test case \S+ must be an integer from 100 to 10,000, or null for no barge-in; it is 50$/,
      );
    }
    expect(line.calls()).toHaveLength(0);
  }, 60_000);
});

describe('voice runs: choosing the channel', () => {
  it('defaults to PHONE without a CONVERSATION connection, refuses what it could not dial with a 400 naming the field', async () => {
    const t = await setup();
    // Another product's phone connection cannot be named on the version.
    const other = await createProduct(t.api);
    const foreign = (await t.api.post('/phoneConnections', { productId: other.id, name: 'other', phoneNumber: NUMBER }))
      .body;
    const bad = await t.api.patch(`/versions/${t.version.id}`, { phoneConnectionId: foreign.id });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/phoneConnectionId/);
    const unknown = await t.api.post('/versions', {
      productId: t.product.id,
      name: 'v2',
      phoneConnectionId: 'phone_00000000000000000000000000',
    });
    expect(unknown.status).toBe(400);
    // channel HTTP without a CONVERSATION connection; an unknown channel.
    const http = await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id, channel: 'HTTP' });
    expect(http.status).toBe(400);
    expect(http.body.message).toMatch(/conversationEndpointConnectionId/);
    const fax = await t.api.post('/runs', { versionId: t.version.id, testId: t.test.id, channel: 'FAX' });
    expect(fax.status).toBe(400);
    expect(fax.body.message).toMatch(/channel/);
    // No telephony configured.
    useLocalTelephony(undefined);
    const none = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('channel: no telephony is configured for this deployment');
    // The local runtime without an LLM endpoint: its phone line cannot speak, so no phone run is taken.
    useLocalTelephony(line, { speaks: false });
    const runsBefore = (await t.api.get('/runs')).headers['x-total-count'];
    const mute = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
    });
    expect(mute.status).toBe(400);
    expect(mute.body.message).toBe('channel: no telephony is configured for this deployment');
    // Refused, not accepted and failed later: no run was created.
    expect((await t.api.get('/runs')).headers['x-total-count']).toBe(runsBefore);
    useLocalTelephony(line);
    // A deleted phone connection.
    expect((await t.api.del('/phoneConnections/batch', { ids: [t.phone.id] })).status).toBe(200);
    const deleted = await t.api.post('/runs', {
      versionId: t.version.id,
      testId: t.test.id,
      metricIds: ['met_non_empty_output'],
    });
    expect(deleted.status).toBe(400);
    expect(deleted.body.message).toMatch(/phoneConnectionId: .*deleted/);
    // Neither connection.
    const bare = (await t.api.post('/versions', { productId: t.product.id, name: 'bare' })).body;
    const neither = await t.api.post('/runs', { versionId: bare.id, testId: t.test.id });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toMatch(/conversationEndpointConnectionId or phoneConnectionId/);
  });
});
