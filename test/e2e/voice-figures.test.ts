import { describe, expect, inject, it } from 'vitest';
import { KNOWN_CALL_VOICE, knownCall } from '../support/recordings.js';
import { e2eApi, expectStatus } from '../support/typed-api.js';
import type { Schema } from '../../console/src/api/client.js';

const api = e2eApi();

/** Polls `read` until `done` says so (the local server's queues and scanner work meanwhile). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('voice figures over HTTP on the local server', () => {
  it('an uploaded stereo recording gets its figures, and a monitor scores the three voice metrics from them', async () => {
    const product = await expectStatus(api.POST('/products', { body: { name: 'phone bot' } }), 201);
    const version = await expectStatus(api.POST('/versions', { body: { productId: product.id, name: 'v1' } }), 201);
    const families = ['mgrp_voice_latency', 'mgrp_voice_no_interruptions', 'mgrp_voice_dead_air'];
    const monitor = await expectStatus(
      api.POST('/monitors', {
        body: { productId: product.id, name: 'call quality', metricGroupIds: families, samplingPercentage: 100 },
      }),
      201,
    );

    // The call: the agent answers 1900 ms after the user (latency 1 − 400/3500), once over them
    // 500 ms into their speech (an interruption), and 4 s of silence before the user's last words.
    const wav = knownCall(16_000);
    const upload = await expectStatus(
      api.GET('/storage/generate-put-presigned-url', {
        params: { query: { fileName: 'call.wav', contentType: 'audio/wav' } },
      }),
      200,
    );
    const put = await fetch(upload.url, { method: 'PUT', body: wav, headers: { 'content-type': 'audio/wav' } });
    expect(put.status).toBe(200);

    // A recording that is not there is refused at once, naming why.
    const missing = await api.POST('/sessions', {
      body: { versionId: version.id, recordingUri: upload.uri.replace(/call\.wav$/, 'missing.wav') },
    });
    expect(missing.response.status).toBe(400);
    expect(missing.error).toMatchObject({ message: expect.stringMatching(/^recordingUri: no object at /) });

    const session = await expectStatus(
      api.POST('/sessions', { body: { versionId: version.id, recordingUri: upload.uri } }),
      201,
    );
    expect(session).toMatchObject({ recordingUri: upload.uri, voice: null, voiceError: null });
    await expectStatus(
      api.PATCH('/sessions/{id}', { params: { path: { id: session.id } }, body: { status: 'COMPLETED' } }),
      200,
    );

    const analysed = await until(
      () => expectStatus(api.GET('/sessions/{id}', { params: { path: { id: session.id } } }), 200),
      (s) => s.voice !== null || s.voiceError !== null,
    );
    expect(analysed.voiceError).toBeNull();
    expect(analysed.voice).toEqual(KNOWN_CALL_VOICE);

    // The monitor scored the session with each voice metric, like any metric.
    const results = await until(
      () =>
        expectStatus(
          api.GET('/monitors/{id}/results', { params: { path: { id: monitor.id }, query: { days: 1 } } }),
          200,
        ),
      (r) => r.metrics.every((m) => m.headline.scoredSessions === 1),
    );
    const score = Object.fromEntries(results.metrics.map((m) => [m.metricGroupId, m.headline.score]));
    expect(score).toEqual({
      mgrp_voice_latency: 1 - 400 / 3500,
      mgrp_voice_no_interruptions: 0,
      mgrp_voice_dead_air: 0.6,
    });

    // And an alert rule watches one of them.
    const rule = await expectStatus(
      api.POST('/monitors/{id}/alertRules', {
        params: { path: { id: monitor.id } },
        body: { metricGroupId: 'mgrp_voice_no_interruptions', window: '1h', minSessions: 1, below: 0.5 },
      }),
      201,
    );
    const alerts = await until(
      () => expectStatus(api.GET('/monitors/{id}/alerts', { params: { path: { id: monitor.id } } }), 200),
      (a) => a.length > 0,
      20_000,
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ ruleId: rule.id, score: 0, scoredSessions: 1 });
  }, 90_000);

  it('a PHONE run’s sessions get their figures from their call recordings, and the run their spread', async () => {
    // The server's phone line answers this number with the example voice agent (an echo after 500 ms).
    const product = await expectStatus(api.POST('/products', { body: { name: 'voice bot' } }), 201);
    const phone = await expectStatus(
      api.POST('/phoneConnections', {
        body: { productId: product.id, name: 'support line', phoneNumber: inject('voiceNumber') },
      }),
      201,
    );
    const version = await expectStatus(
      api.POST('/versions', { body: { productId: product.id, name: 'v1', phoneConnectionId: phone.id } }),
      201,
    );
    const upload = await expectStatus(
      api.GET('/storage/generate-put-presigned-url', {
        params: { query: { fileName: 'calls.csv', contentType: 'text/csv' } },
      }),
      200,
    );
    await fetch(upload.url, {
      method: 'PUT',
      body: 'input,expected_output\nwhere is my order,where is my order\nhello there,hello there\n',
      headers: { 'content-type': 'text/csv' },
    });
    const test = await expectStatus(
      api.POST('/tests', { body: { productId: product.id, name: 'calls', type: 'QUALITY', uri: upload.uri } }),
      201,
    );
    const created = await expectStatus(
      api.POST('/runs', { body: { versionId: version.id, testId: test.id, metricIds: ['met_non_empty_output'] } }),
      201,
    );
    expect(created.channel).toBe('PHONE');
    const read = () => expectStatus(api.GET('/runs/{id}', { params: { path: { id: created.id } } }), 200);
    // Finished, and its figures brought up to date once each call's recording was analysed.
    const run = await until(
      read,
      (r) => r.status !== 'RUNNING' && r.status !== 'PENDING' && r.voice?.agentSpeechMs?.p95 != null,
      60_000,
    );
    expect(run.status).toBe('COMPLETED');
    const sessions = await expectStatus(api.GET('/sessions', { params: { query: { runIds: [created.id] } } }), 200);
    const voices: NonNullable<Schema<'Session'>['voice']>[] = [];
    for (const s of sessions) {
      const session = await until(
        () => expectStatus(api.GET('/sessions/{id}', { params: { path: { id: s.id } } }), 200),
        (x) => x.voice !== null,
      );
      const turns = await expectStatus(
        api.GET('/inferenceResults', { params: { query: { sessionIds: [s.id] } } }),
        200,
      );
      // The echo answers once, after the caller: the turn's latency, no overlap, no interruption.
      expect(session.voice).toMatchObject({
        responseLatencyMs: [turns[0]!.latencyMs],
        overlapMs: 0,
        agentInterruptions: 0,
        deadAirMs: 0,
      });
      voices.push(session.voice!);
    }
    const latencies = voices.map((v) => v.responseLatencyMs[0]!).sort((a, b) => a - b);
    const sorted = (pick: (v: (typeof voices)[number]) => number) => voices.map(pick).sort((a, b) => a - b);
    const final = await until(read, (r) => r.voice?.agentSpeechMs?.p95 === sorted((v) => v.agentSpeechMs)[1]);
    // Nearest rank over two: p50 the lower, p95 the higher.
    expect(final.voice).toEqual({
      responseLatencyMs: { p50: latencies[0], p95: latencies[1] },
      agentSpeechMs: { p50: sorted((v) => v.agentSpeechMs)[0], p95: sorted((v) => v.agentSpeechMs)[1] },
      userSpeechMs: { p50: sorted((v) => v.userSpeechMs)[0], p95: sorted((v) => v.userSpeechMs)[1] },
      talkRatio: { p50: sorted((v) => v.talkRatio!)[0], p95: sorted((v) => v.talkRatio!)[1] },
      overlapMs: { p50: 0, p95: 0 },
      agentInterruptions: { p50: 0, p95: 0 },
      deadAirMs: { p50: 0, p95: 0 },
      interruptionRate: 0,
      bargeInRecovery: null,
    });
  }, 90_000);
});
