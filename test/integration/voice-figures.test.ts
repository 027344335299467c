import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { handler as voiceJob } from '../../functions/jobs/voice-figures.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { localQueue, localVoiceQueue } from '../../infra/local/queues.js';
import { drainRunQueue, voiceDeadLetters } from '../../infra/local/run-queue.js';
import { createRun, createRunSessions, getStoredRun, type RunSession, type StoredRun } from '../../shared/db/runs.js';
import { setRunVoice, storeSessionVoice } from '../../shared/db/voice.js';
import { newId } from '../../shared/domain/common/ids.js';
import { NO_RUN_VOICE, refreshRunVoice } from '../../shared/domain/runs/run-voice.js';
import { NO_SPEECH, NOT_IN_STORAGE } from '../../shared/domain/voice/figures.js';
import { bucketName, s3 } from '../../shared/storage/s3.js';
import { newTenant, type Client } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { callRecording, headerSaying, KNOWN_CALL_VOICE, knownCall, monoWav, stereoWav } from '../support/recordings.js';

/**
 * A call's voice figures from its uploaded stereo recording: POST and PATCH /sessions check the
 * recording and queue it; the voice job (functions/jobs/voice-figures.ts) stores the figures; the
 * voice metrics score them once they are there.
 */

const VOICE_QUEUE = {
  queue: localVoiceQueue,
  deadLetters: voiceDeadLetters,
  now: () => Date.now(),
  arnName: 'voice-jobs',
};
const drainVoice = (duplicate = false) =>
  drainRunQueue((e) => voiceJob(e as SQSEvent) as Promise<unknown>, { queue: VOICE_QUEUE, duplicate, concurrency: 1 });
const drainEvaluations = (duplicate = false) => drainLocalQueue((e) => evaluator(e) as Promise<unknown>, { duplicate });

beforeEach(() => {
  localVoiceQueue.messages.length = 0;
  localQueue.messages.length = 0;
  voiceDeadLetters.length = 0;
});
afterEach(() => vi.restoreAllMocks());

/** Uploads bytes through a presigned URL, as a client does; their `s3://` URI. */
async function upload(api: Client, bytes: Uint8Array, fileName = 'call.wav'): Promise<string> {
  const res = await api.get('/storage/generate-put-presigned-url', { fileName, contentType: 'audio/wav' });
  expect(res.status).toBe(200);
  const put = await fetch(res.body.url, { method: 'PUT', body: bytes, headers: { 'content-type': 'audio/wav' } });
  expect(put.status).toBe(200);
  return res.body.uri;
}

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  return { ...t, product, version };
}

const CALL = knownCall();
const CALL_VOICE = KNOWN_CALL_VOICE;
const seg = (startMs: number, endMs: number) => ({ startMs, endMs });

describe('voice figures of a production call', () => {
  it('POST /sessions with a recording: figures computed by the job, every one exact; the job delivered twice stores them once', async () => {
    const t = await setup();
    const uri = await upload(t.api, CALL);
    const created = await t.api.post('/sessions', { versionId: t.version.id, recordingUri: uri });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ recordingUri: uri, voice: null, voiceError: null, isProduction: true });
    expect(localVoiceQueue.messages.map((m) => JSON.parse(m.body))).toEqual([
      { sessionId: created.body.id, recordingUri: uri },
    ]);
    await drainVoice(true);
    const session = (await t.api.get(`/sessions/${created.body.id}`)).body;
    expect(session.voice).toEqual(CALL_VOICE);
    expect(session.voiceError).toBeNull();
    // Listed with its figures too.
    const [listed] = (await t.api.get('/sessions', { versionIds: t.version.id })).body;
    expect(listed.voice).toEqual(CALL_VOICE);
    // The same job again changes nothing.
    localVoiceQueue.messages.push({
      id: 'again',
      body: JSON.stringify({ sessionId: session.id, recordingUri: uri }),
      receiveCount: 0,
      visibleAt: 0,
    });
    await drainVoice();
    expect((await t.api.get(`/sessions/${session.id}`)).body).toEqual(session);
    expect(voiceDeadLetters).toEqual([]);
  });

  it('PATCH sets, replaces and clears the recording: new figures for a new one, none for none, the same one again keeps them', async () => {
    const t = await setup();
    const s = (await t.api.post('/sessions', { versionId: t.version.id })).body;
    expect(s).toMatchObject({ recordingUri: null, voice: null, voiceError: null });
    const first = await upload(t.api, CALL);
    expect((await t.api.patch(`/sessions/${s.id}`, { recordingUri: first, status: 'COMPLETED' })).status).toBe(200);
    await drainVoice();
    expect((await t.api.get(`/sessions/${s.id}`)).body.voice).toEqual(CALL_VOICE);
    // The same recording again: kept, nothing queued.
    const again = await t.api.patch(`/sessions/${s.id}`, { recordingUri: first });
    expect(again.body.voice, JSON.stringify(again.body)).toEqual(CALL_VOICE);
    expect(localVoiceQueue.messages).toHaveLength(0);
    // Another one: the figures go, and come back from it. The first one's job, late, stores nothing.
    const second = await upload(t.api, callRecording(4000, [[0, 1000]], [[2000, 3000]], 16_000));
    const patched = await t.api.patch(`/sessions/${s.id}`, { recordingUri: second });
    expect(patched.body).toMatchObject({ recordingUri: second, voice: null, voiceError: null });
    localVoiceQueue.messages.push({
      id: 'late',
      body: JSON.stringify({ sessionId: s.id, recordingUri: first }),
      receiveCount: 0,
      visibleAt: 0,
    });
    await drainVoice();
    expect((await t.api.get(`/sessions/${s.id}`)).body.voice).toMatchObject({
      agentSpeechMs: 1000,
      userSpeechMs: 1000,
      talkRatio: 0.5,
      agentInterruptions: 0,
      deadAirMs: 0,
      responseLatencyMs: [],
      segments: { agent: [seg(0, 1000)], user: [seg(2000, 3000)], truncated: false },
    });
    // None: no figures.
    expect((await t.api.patch(`/sessions/${s.id}`, { recordingUri: null })).body).toMatchObject({
      recordingUri: null,
      voice: null,
      voiceError: null,
    });
  });

  it('refuses what is not a recording it can read with a 400 naming why, on POST and PATCH; nothing is stored or queued', async () => {
    const t = await setup();
    const s = (await t.api.post('/sessions', { versionId: t.version.id })).body;
    const cd = stereoWav(44_100, new Int16Array(441), new Int16Array(441));
    const cases: [Uint8Array, string][] = [
      [new TextEncoder().encode('input,expected_output\nhi,hello\n'), 'the recording is not a WAV file'],
      [monoWav(8000, 1000), 'the recording must be stereo (the agent left, the caller right); it has 1 channel'],
      [cd, "the recording's sample rate must be 8000 or 16000 Hz; it is 44100 Hz"],
      [new Uint8Array(), 'the recording is empty'],
      [stereoWav(8000, new Int16Array(), new Int16Array()), 'the recording holds no audio'],
      [headerSaying(7201), 'the recording is longer than 2 hours'],
    ];
    for (const [bytes, why] of cases) {
      const uri = await upload(t.api, bytes);
      const posted = await t.api.post('/sessions', { versionId: t.version.id, recordingUri: uri });
      expect(posted.status, why).toBe(400);
      expect(posted.body.message).toBe(`recordingUri: ${why}`);
      const patched = await t.api.patch(`/sessions/${s.id}`, { recordingUri: uri });
      expect(patched.status, why).toBe(400);
      expect(patched.body.message).toBe(`recordingUri: ${why}`);
    }
    // No object there.
    const missing = `s3://${bucketName}/orgs/${t.org.id}/uploads/nothing/call.wav`;
    const none = await t.api.patch(`/sessions/${s.id}`, { recordingUri: missing });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(`recordingUri: no object at ${missing} (upload the recording first)`);
    expect((await t.api.get(`/sessions/${s.id}`)).body.recordingUri).toBeNull();
    expect((await t.api.get('/sessions', { versionIds: t.version.id })).body).toHaveLength(1);
    expect(localVoiceQueue.messages).toHaveLength(0);
  });

  it("another organization's recording is a 403; a recording outside the service's storage is kept, without figures and saying why", async () => {
    const t = await setup();
    const other = await setup();
    const theirs = await upload(other.api, CALL);
    const s = (await t.api.post('/sessions', { versionId: t.version.id })).body;
    const patched = await t.api.patch(`/sessions/${s.id}`, { recordingUri: theirs });
    expect(patched.status).toBe(403);
    expect(patched.body.message).toBe("recordingUri names an object outside your organization's storage");
    expect((await t.api.post('/sessions', { versionId: t.version.id, recordingUri: theirs })).status).toBe(403);
    // Their session is theirs: 403 to read, to patch.
    const theirSession = (await other.api.post('/sessions', { versionId: other.version.id, recordingUri: theirs }))
      .body;
    expect((await t.api.get(`/sessions/${theirSession.id}`)).status).toBe(403);
    expect((await t.api.patch(`/sessions/${theirSession.id}`, { recordingUri: null })).status).toBe(403);
    localVoiceQueue.messages.length = 0;
    const elsewhere = await t.api.patch(`/sessions/${s.id}`, { recordingUri: 's3://their-bucket/calls/1.wav' });
    expect(elsewhere.body).toMatchObject({
      recordingUri: 's3://their-bucket/calls/1.wav',
      voice: null,
      voiceError: NOT_IN_STORAGE,
    });
    expect(localVoiceQueue.messages).toHaveLength(0);
  });

  it('a recording without speech gets no figures and the reason; bytes replaced after the check by no recording, the same', async () => {
    const t = await setup();
    const silent = await upload(t.api, callRecording(3000, [], []));
    const quiet = (await t.api.post('/sessions', { versionId: t.version.id, recordingUri: silent })).body;
    const uri = await upload(t.api, CALL);
    const swapped = (await t.api.post('/sessions', { versionId: t.version.id, recordingUri: uri })).body;
    // The object is overwritten after the request checked it: the job reads what is there.
    const key = uri.slice(`s3://${bucketName}/`.length);
    await s3().send(new PutObjectCommand({ Bucket: bucketName, Key: key, Body: 'not audio at all' }));
    await drainVoice();
    expect((await t.api.get(`/sessions/${quiet.id}`)).body).toMatchObject({ voice: null, voiceError: NO_SPEECH });
    expect((await t.api.get(`/sessions/${swapped.id}`)).body).toMatchObject({
      voice: null,
      voiceError: 'the recording is not a WAV file',
    });
    expect(voiceDeadLetters).toEqual([]);
  });

  it('storage failing on every receive: the session says its recording could not be analysed, and its job is not stuck', async () => {
    const t = await setup();
    const uri = await upload(t.api, CALL);
    const s = (await t.api.post('/sessions', { versionId: t.version.id, recordingUri: uri })).body;
    const client = s3();
    const send = client.send.bind(client);
    vi.spyOn(client, 'send').mockImplementation(((command: unknown) =>
      command instanceof GetObjectCommand ? Promise.reject(new Error('S3 is down')) : send(command as never)) as never);
    await drainVoice();
    vi.restoreAllMocks();
    expect((await t.api.get(`/sessions/${s.id}`)).body).toMatchObject({
      voice: null,
      voiceError: 'the recording could not be analysed: reading it failed 3 times',
    });
    expect(voiceDeadLetters).toEqual([]);
    expect(localVoiceQueue.messages).toHaveLength(0);
  });
});

describe('the voice metrics', () => {
  const VOICE_METRICS = ['met_voice_latency', 'met_voice_no_interruptions', 'met_voice_dead_air'];

  it('wait for the figures, then score them once however often each job comes; a session without a recording is skipped', async () => {
    const t = await setup();
    const uri = await upload(t.api, CALL);
    const s = (await t.api.post('/sessions', { versionId: t.version.id, recordingUri: uri })).body;
    const created = await t.api.post('/evaluations', { sessionId: s.id, metricIds: VOICE_METRICS });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.map((e: { status: string }) => e.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    // Scored before the figures: they wait (PENDING), and ask for the figures again.
    await drainEvaluations(true);
    const read = async (): Promise<Record<string, { status: string }>> =>
      Object.fromEntries(
        ((await t.api.get('/evaluations', { sessionIds: s.id })).body as any[]).map((e) => [
          e.metricId,
          { status: e.status, score: e.score, reason: e.reason, error: e.error },
        ]),
      );
    expect(Object.values(await read()).map((e) => e.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    expect(localVoiceQueue.messages.length).toBeGreaterThan(0);
    // The figures are stored (one job analyses, the others find them there) and the evaluations queued again.
    await drainVoice(true);
    await drainEvaluations(true);
    expect(await read()).toEqual({
      met_voice_latency: {
        status: 'SUCCESS',
        score: 1 - 400 / 3500,
        reason: 'voice_latency: p95 response latency 1,900 ms over 1 answer (1 up to 1,500 ms)',
        error: null,
      },
      met_voice_no_interruptions: {
        status: 'SUCCESS',
        score: 0,
        reason: 'voice_no_interruptions: the agent interrupted 1 time',
        error: null,
      },
      met_voice_dead_air: {
        status: 'SUCCESS',
        score: 0.6,
        reason: 'voice_dead_air: 4,000 ms of silences over 3 s (0 from 10,000 ms)',
        error: null,
      },
    });
    expect(localQueue.messages).toHaveLength(0);

    // Without a recording, or with one that holds no speech: skipped, saying why.
    const bare = (await t.api.post('/sessions', { versionId: t.version.id })).body;
    const skipped = (await t.api.post('/evaluations', { sessionId: bare.id, metricIds: VOICE_METRICS })).body;
    expect(skipped.map((e: { status: string; error: string }) => [e.status, e.error])).toEqual(
      Array(3).fill(['SKIPPED', 'missing voice: the session has no recording']),
    );
    const silent = await upload(t.api, callRecording(3000, [], []));
    const quiet = (await t.api.post('/sessions', { versionId: t.version.id, recordingUri: silent })).body;
    await drainVoice();
    const none = (await t.api.post('/evaluations', { sessionId: quiet.id, metricIds: ['met_voice_dead_air'] })).body;
    expect(none[0]).toMatchObject({ status: 'SKIPPED', error: `missing voice: ${NO_SPEECH}` });
    // The compatibility route says the same.
    const compat = (await t.api.get(`/sessions/${bare.id}/metricCompatibility`, { limit: 500 })).body as any[];
    expect(compat.find((c) => c.id === 'met_voice_latency')).toMatchObject({
      isCompatible: false,
      incompatibilityReason: 'missing voice: the session has no recording',
    });
  });

  it('are predefined, deterministic and monitorable', async () => {
    const t = await setup();
    for (const id of VOICE_METRICS) {
      const metric = (await t.api.get(`/metrics/${id}`)).body;
      expect(metric).toMatchObject({ source: 'DETERMINISTIC', evaluationParams: ['voice'], organizationId: null });
    }
    const monitor = await t.api.post('/monitors', {
      productId: t.product.id,
      name: 'call quality',
      metricGroupIds: VOICE_METRICS.map((id) => id.replace('met_', 'mgrp_')),
      samplingPercentage: 100,
    });
    expect(monitor.status, JSON.stringify(monitor.body)).toBe(201);
  });
});

describe("a PHONE run's voice figures", () => {
  it('stay current however its sessions’ figures and its own computation interleave (the stamp)', async () => {
    const t = await setup();
    const runId = newId('run');
    const now = new Date().toISOString();
    await createRun({
      id: runId,
      organizationId: t.org.id,
      productId: t.product.id,
      versionId: t.version.id,
      channel: 'PHONE',
      status: 'COMPLETED',
      createdAt: now,
      metricIds: [],
      progress: { total: 2, pending: 0, running: 0, completed: 2, failed: 0 },
      _metricNames: {},
      _stats: {},
      _plan: [],
      _final: true,
    } as unknown as StoredRun);
    const session = (id: string) =>
      ({
        id,
        organizationId: t.org.id,
        productId: t.product.id,
        versionId: t.version.id,
        runId,
        createdAt: now,
        recordingUri: `s3://${bucketName}/orgs/${t.org.id}/voice/${id}.wav`,
        voice: null,
        voiceError: null,
        _runId: runId,
        _seq: 1,
        _queued: 1,
        _phase: 'DONE',
      }) as unknown as RunSession;
    const [a, b] = [session(newId('session')), session(newId('session'))];
    await createRunSessions([a!, b!]);
    const figures = (agentSpeechMs: number, responseLatencyMs: number[]) => ({
      ...CALL_VOICE,
      agentSpeechMs,
      responseLatencyMs,
    });
    const read = async () => (await t.api.get(`/runs/${runId}`)).body.voice;

    // A's figures land after the run finished: the run takes them.
    expect(await storeSessionVoice(a!, a!.recordingUri!, { voice: figures(1000, [300]), voiceError: null })).toBe(true);
    await refreshRunVoice(t.org.id, runId);
    expect(await read()).toMatchObject({ agentSpeechMs: { p50: 1000, p95: 1000 }, interruptionRate: 1 });
    // A computation that read the sessions before B's figures landed is refused (its stamp is old)…
    expect(await storeSessionVoice(b!, b!.recordingUri!, { voice: figures(3000, [500, 700]), voiceError: null })).toBe(
      true,
    );
    expect(await setRunVoice(t.org.id, runId, { ...NO_RUN_VOICE }, 1)).toBe(false);
    // …and the next refresh takes both: nearest-rank over the sessions, latency over every answer.
    await refreshRunVoice(t.org.id, runId);
    expect(await read()).toEqual({
      responseLatencyMs: { p50: 500, p95: 700 },
      agentSpeechMs: { p50: 1000, p95: 3000 },
      userSpeechMs: { p50: 1700, p95: 1700 },
      talkRatio: { p50: CALL_VOICE.talkRatio, p95: CALL_VOICE.talkRatio },
      overlapMs: { p50: 400, p95: 400 },
      agentInterruptions: { p50: 1, p95: 1 },
      deadAirMs: { p50: 4000, p95: 4000 },
      interruptionRate: 1,
      bargeInRecovery: null,
    });
    // Current: a refresh now writes nothing (the stamp it was computed at is the run's).
    const before = await getStoredRun(t.org.id, runId);
    expect(before._voiceOf).toBe(before._voiceStamp);
    await refreshRunVoice(t.org.id, runId);
    expect(await getStoredRun(t.org.id, runId)).toEqual(before);
  });
});
