import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

// Read at load by the logger: every line at debug, so the test of the log searches the attempt lines too.
const saved = vi.hoisted(() => {
  const before = {
    LOG_LEVEL: process.env.LOG_LEVEL,
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED,
  };
  process.env.LOG_LEVEL = 'debug';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  return before;
});

import { tenantWithCredits } from '../support/api.js';
import { reply, startLlmStub, type LlmStub } from '../support/llm-server.js';
import { fakeClock, gate } from '../support/fake-clock.js';
import { llmConfig, setLlmConfig } from '../../shared/llm/client.js';
import {
  MAX_SPEECH_CHARACTERS,
  setSpeechConfig,
  speechConfig,
  synthesizeSpeech,
  transcribeSpeech,
} from '../../shared/llm/speech.js';
import { putModel } from '../../shared/db/models.js';
import { metrics } from '../../shared/observability/metrics.js';
import { decodeWav, encodeWav, SAMPLE_RATE } from '../../shared/voice/audio.js';
import { textToWav, wavToText } from '../../examples/voice/tone-codec.mjs';

const KEY = 'sk-speech-SECRET-3e7a';

let stub: LlmStub;
const original = { llm: { ...llmConfig() }, speech: { ...speechConfig() } };
beforeAll(async () => {
  stub = await startLlmStub();
});
afterAll(async () => {
  setLlmConfig(original.llm);
  setSpeechConfig(original.speech);
  await stub.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
beforeEach(() => {
  stub.speechRequests.length = 0;
  stub.transcriptionRequests.length = 0;
  stub.setSpeechHandler((req) => textToWav(req.input));
  stub.setTranscriptionHandler((req) => ({ text: wavToText(req.file) }));
  setLlmConfig({ baseUrl: stub.url, apiKey: KEY, timeoutMs: 500, backoffMs: 20, maxBackoffMs: 2_000, maxAttempts: 3 });
  setSpeechConfig(original.speech);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A request the stub holds without answering; an attempt's timeout on the fake clock expires once it does. */
const held = gate();
const hang = () => {
  held.open();
  return reply.hang();
};

/** The format fields of a PCM WAV file's header (a 44-byte canonical header). */
function format(wav: Uint8Array) {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  return { channels: view.getUint16(22, true), sampleRate: view.getUint32(24, true), bits: view.getUint16(34, true) };
}

/** A WAV as the service records an answer: 8 kHz 16-bit mono. */
const recorded = (text: string) => encodeWav(decodeWav(textToWav(text)));

/** A model record of a unique name: its provider id and price. */
async function modelRecord(providerModelId: string, creditsPerEvaluation: number): Promise<string> {
  const name = `${providerModelId}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const now = new Date().toISOString();
  await putModel({
    name,
    provider: 'openai',
    providerModelId,
    creditsPerEvaluation,
    unselectableAt: null,
    disabledAt: null,
    createdAt: now,
    updatedAt: now,
  });
  return name;
}

describe('speech synthesis', () => {
  it('posts the text, model and voice for a WAV, answers it at 8 kHz 16-bit mono, and charges the model once', async () => {
    const t = await tenantWithCredits();
    const text = 'Hello, I would like a refund for order 42.';
    const result = await synthesizeSpeech({ organizationId: t.org.id, text });
    expect(result).toMatchObject({ ok: true, creditsUsed: 1 });
    const wav = (result as { wav: Uint8Array }).wav;
    expect(format(wav)).toEqual({ channels: 1, sampleRate: SAMPLE_RATE, bits: 16 });
    expect(wavToText(wav)).toBe(text);
    // How long it plays, from the samples it was made of (a voice step's deadline counts from its end).
    expect((result as { durationMs: number }).durationMs).toBe(
      Math.round((decodeWav(wav).length / SAMPLE_RATE) * 1000),
    );
    expect(stub.speechRequests).toHaveLength(1);
    const request = stub.speechRequests[0]!;
    expect(request.body).toEqual({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: text, response_format: 'wav' });
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    // A name without an evaluator-model record costs 1 credit.
    expect(await t.credits()).toEqual({ spent: 1, pending: 0, available: 99 });
  });

  it('sends the provider id of an evaluator-model record and charges its credits per call', async () => {
    const t = await tenantWithCredits();
    const name = await modelRecord('tts-provider-model', 3);
    setSpeechConfig({ ttsModel: name, ttsVoice: 'verse' });
    const result = await synthesizeSpeech({ organizationId: t.org.id, text: 'Olá, tudo bem? Ação №5 ✓' });
    expect(result).toMatchObject({ ok: true, creditsUsed: 3 });
    expect(wavToText((result as { wav: Uint8Array }).wav)).toBe('Olá, tudo bem? Ação №5 ✓');
    expect(stub.speechRequests[0]).toMatchObject({ model: 'tts-provider-model', voice: 'verse' });
    expect(await t.credits()).toEqual({ spent: 3, pending: 0, available: 97 });
  });

  it('reads a streamed WAV whose sizes are left at 0xFFFFFFFF, as OpenAI sends it', async () => {
    const t = await tenantWithCredits();
    stub.setSpeechHandler((req) => {
      const wav = Uint8Array.from(textToWav(req.input));
      const view = new DataView(wav.buffer);
      view.setUint32(4, 0xffffffff, true); // RIFF size
      view.setUint32(40, 0xffffffff, true); // data size
      return wav;
    });
    const result = await synthesizeSpeech({ organizationId: t.org.id, text: 'streamed' });
    expect(wavToText((result as { wav: Uint8Array }).wav)).toBe('streamed');
  });

  it('counts the call: its latency, and the credits charged', async () => {
    const t = await tenantWithCredits();
    const added = vi.spyOn(metrics, 'addMetric');
    await synthesizeSpeech({ organizationId: t.org.id, text: 'hi' });
    expect(added.mock.calls.map((c) => c[0])).toEqual(['LlmCallLatency', 'CreditsCharged']);
    added.mockClear();
    stub.setSpeechHandler(() => reply.raw(400, { error: { message: 'bad voice' } }));
    await synthesizeSpeech({ organizationId: t.org.id, text: 'hi' });
    expect(added.mock.calls.map((c) => c[0])).toEqual(['LlmCallLatency', 'LlmCallErrors']);
  });

  it('retries 429 after its Retry-After, then 5xx and a timeout with backoff, charging once', async () => {
    const t = await tenantWithCredits();
    let n = 0;
    stub.setSpeechHandler((req) =>
      ++n === 1 ? reply.raw(429, { error: { message: 'rate limited' } }, { 'retry-after': '2' }) : textToWav(req.input),
    );
    let time = fakeClock();
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'again' })).toMatchObject({
      ok: true,
      creditsUsed: 1,
    });
    expect(stub.speechRequests).toHaveLength(2);
    expect(time.waits).toEqual([2_000]);

    vi.restoreAllMocks();
    stub.speechRequests.length = 0;
    n = 0;
    stub.setSpeechHandler((req) =>
      ++n === 1 ? reply.raw(503, 'overloaded') : n === 2 ? hang() : textToWav(req.input),
    );
    time = fakeClock({ expire: () => held.next() });
    const result = await synthesizeSpeech({ organizationId: t.org.id, text: 'third time' });
    expect(wavToText((result as { wav: Uint8Array }).wav)).toBe('third time');
    expect(stub.speechRequests).toHaveLength(3);
    expect(time.timeouts).toEqual([500, 500, 500]);
    // Exponential from 20 ms with equal jitter: 10–20 ms, then 20–40 ms.
    expect(time.waits).toHaveLength(2);
    expect(time.waits[0]).toBeGreaterThanOrEqual(10);
    expect(time.waits[0]).toBeLessThanOrEqual(20);
    expect(time.waits[1]).toBeGreaterThanOrEqual(20);
    expect(time.waits[1]).toBeLessThanOrEqual(40);
    expect(await t.credits()).toEqual({ spent: 2, pending: 0, available: 98 });
  });

  it('fails naming the step and the last error after the attempts, releasing the credits', async () => {
    const t = await tenantWithCredits();
    stub.setSpeechHandler(() => reply.raw(500, { error: { message: 'the voice is hoarse' } }));
    fakeClock();
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' })).toEqual({
      ok: false,
      error:
        'speech synthesis failed: the speech model answered HTTP 500: "{\\"error\\":{\\"message\\":\\"the voice is hoarse\\"}}" (after 3 attempts)',
      creditsUsed: 0,
    });
    expect(stub.speechRequests).toHaveLength(3);
    expect(await t.credits()).toEqual({ spent: 0, pending: 0, available: 100 });
  });

  it('stops within the time the caller has left (remainingMs)', async () => {
    const t = await tenantWithCredits();
    setLlmConfig({ timeoutMs: 60_000 });
    stub.setSpeechHandler(hang);
    const time = fakeClock({ expire: () => held.next() });
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello', remainingMs: 4_000 })).toEqual({
      ok: false,
      error:
        'speech synthesis failed: the speech model did not answer within 2000 ms (after 1 attempt; no time left for another)',
      creditsUsed: 0,
    });
    expect(time.timeouts).toEqual([2_000]);
    expect(await t.credits()).toEqual({ spent: 0, pending: 0, available: 100 });
  });

  it('fails on an answer that is not a WAV file, or holds no audio, releasing the credits', async () => {
    const t = await tenantWithCredits();
    stub.setSpeechHandler(() => reply.raw(200, 'ID3\u0004 an mp3, not a wav', { 'content-type': 'audio/mpeg' }));
    const garbage = await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' });
    expect(garbage).toMatchObject({ ok: false, creditsUsed: 0 });
    expect((garbage as { error: string }).error).toMatch(
      /^speech synthesis failed: the speech model's answer is not a WAV file: ".+"$/,
    );
    stub.setSpeechHandler(() => encodeWav(new Int16Array(0)));
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' })).toEqual({
      ok: false,
      error: "speech synthesis failed: the speech model's answer holds no audio",
      creditsUsed: 0,
    });
    stub.setSpeechHandler(() => reply.drop());
    fakeClock();
    const dropped = await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' });
    expect((dropped as { error: string }).error).toMatch(
      /^speech synthesis failed: the speech model could not be reached: .+ \(after 3 attempts\)$/,
    );
    expect(await t.credits()).toEqual({ spent: 0, pending: 0, available: 100 });
  });

  it('sends nothing for an empty or too long text', async () => {
    const t = await tenantWithCredits();
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: '  \n' })).toEqual({
      ok: false,
      error: 'speech synthesis failed: there is no text to say',
      creditsUsed: 0,
    });
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'a'.repeat(MAX_SPEECH_CHARACTERS + 1) })).toEqual({
      ok: false,
      error: 'speech synthesis failed: the text has 4097 characters, more than the 4096 a request takes',
      creditsUsed: 0,
    });
    expect(stub.speechRequests).toHaveLength(0);
    expect(await t.credits()).toEqual({ spent: 0, pending: 0, available: 100 });
  });
});

describe('transcription', () => {
  it('posts the WAV as a multipart form with the model and language, and answers the text, charging the model once', async () => {
    const t = await tenantWithCredits();
    const wav = recorded('Sim, o reembolso já foi aprovado.');
    const result = await transcribeSpeech({ organizationId: t.org.id, wav, language: 'pt-BR' });
    expect(result).toEqual({ ok: true, text: 'Sim, o reembolso já foi aprovado.', creditsUsed: 1 });
    expect(stub.transcriptionRequests).toHaveLength(1);
    const request = stub.transcriptionRequests[0]!;
    expect(request).toMatchObject({
      model: 'gpt-4o-mini-transcribe',
      language: 'pt',
      responseFormat: 'json',
      fileName: 'answer.wav',
      fileType: 'audio/wav',
    });
    expect(Buffer.from(request.file).equals(Buffer.from(wav))).toBe(true);
    expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await t.credits()).toEqual({ spent: 1, pending: 0, available: 99 });
  });

  it('sends no language when none is given, and the record’s provider id and price', async () => {
    const t = await tenantWithCredits();
    const name = await modelRecord('stt-provider-model', 2);
    setSpeechConfig({ transcriptionModel: name });
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('ok') })).toEqual({
      ok: true,
      text: 'ok',
      creditsUsed: 2,
    });
    const request = stub.transcriptionRequests[0]!;
    expect(request.model).toBe('stt-provider-model');
    expect(request.language).toBeUndefined();
    expect(Object.keys(request.fields).sort()).toEqual(['model', 'response_format']);
    expect(await t.credits()).toEqual({ spent: 2, pending: 0, available: 98 });
  });

  it('hears what synthesis said: text → speech → text', async () => {
    const t = await tenantWithCredits();
    const text = '¿Puedo cambiar la dirección de entrega? #A-17 (urgent!)';
    const spoken = await synthesizeSpeech({ organizationId: t.org.id, text });
    const heard = await transcribeSpeech({ organizationId: t.org.id, wav: (spoken as { wav: Uint8Array }).wav });
    expect(heard).toEqual({ ok: true, text, creditsUsed: 1 });
    expect(await t.credits()).toEqual({ spent: 2, pending: 0, available: 98 });
  });

  it('retries 429 and 5xx with the same form, then fails naming the step, releasing the credits', async () => {
    const t = await tenantWithCredits();
    let n = 0;
    stub.setTranscriptionHandler((req) =>
      ++n === 1
        ? reply.raw(429, 'slow down', { 'retry-after-ms': '750' })
        : n === 2
          ? reply.raw(502, 'bad gateway')
          : { text: wavToText(req.file) },
    );
    const time = fakeClock();
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('third') })).toMatchObject({
      ok: true,
      text: 'third',
    });
    expect(stub.transcriptionRequests.map((r) => wavToText(r.file))).toEqual(['third', 'third', 'third']);
    expect(time.waits[0]).toBe(750);

    stub.setTranscriptionHandler(() => reply.raw(503, ''));
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('x') })).toEqual({
      ok: false,
      error: 'transcription failed: the transcription model answered HTTP 503 (after 3 attempts)',
      creditsUsed: 0,
    });
    expect(await t.credits()).toEqual({ spent: 1, pending: 0, available: 99 });
  });

  it('fails at once on another 4xx, quoting the body without the key', async () => {
    const t = await tenantWithCredits();
    stub.setTranscriptionHandler(() => reply.raw(401, { error: { message: `Incorrect API key provided: ${KEY}` } }));
    const result = await transcribeSpeech({ organizationId: t.org.id, wav: recorded('x') });
    expect((result as { error: string }).error).toMatch(
      /^transcription failed: the transcription model answered HTTP 401: .*Incorrect API key provided: \*\*\*/,
    );
    expect((result as { error: string }).error).not.toContain(KEY);
    expect(stub.transcriptionRequests).toHaveLength(1);
  });

  it('fails on an answer that is not JSON or has no text, releasing the credits', async () => {
    const t = await tenantWithCredits();
    stub.setTranscriptionHandler(() => reply.content('Sim, o reembolso'));
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('x') })).toEqual({
      ok: false,
      error: 'transcription failed: the transcription model\'s answer is not JSON: "Sim, o reembolso"',
      creditsUsed: 0,
    });
    stub.setTranscriptionHandler(() => ({ transcript: 'Sim' }));
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('x') })).toEqual({
      ok: false,
      error: 'transcription failed: the transcription model\'s answer has no text: "{\\"transcript\\":\\"Sim\\"}"',
      creditsUsed: 0,
    });
    expect(await t.credits()).toEqual({ spent: 0, pending: 0, available: 100 });
  });

  it('answers silence as an empty text', async () => {
    const t = await tenantWithCredits();
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: encodeWav(new Int16Array(8_000)) })).toEqual({
      ok: true,
      text: '',
      creditsUsed: 1,
    });
  });
});

describe('speech without a model or credits', () => {
  it('without LLM_BASE_URL fails with "no speech/transcription model is configured", sending and spending nothing', async () => {
    const t = await tenantWithCredits();
    setLlmConfig({ baseUrl: undefined });
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' })).toEqual({
      ok: false,
      error: 'no speech model is configured',
      creditsUsed: 0,
    });
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('hello') })).toEqual({
      ok: false,
      error: 'no transcription model is configured',
      creditsUsed: 0,
    });
    expect(stub.speechRequests).toHaveLength(0);
    expect(stub.transcriptionRequests).toHaveLength(0);
    expect(await t.credits()).toEqual({ spent: 0, pending: 0, available: 100 });
  });

  it('without credits fails with "no credits available", sending nothing', async () => {
    const t = await tenantWithCredits(0);
    const none = {
      ok: false,
      error: 'no credits available: the organization has used its monthly credits',
      creditsUsed: 0,
    };
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' })).toEqual(none);
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('hello') })).toEqual(none);
    expect(stub.speechRequests).toHaveLength(0);
    expect(stub.transcriptionRequests).toHaveLength(0);
  });
});

describe('the log of speech calls', () => {
  it('carries the attempts and failures at debug level, never the API key', async () => {
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
        written.push(String(chunk));
        return true;
      }) as typeof stream.write);
    }
    const t = await tenantWithCredits();
    // The provider quotes the key and the headers it got, in a 500 and then in a 401.
    let n = 0;
    const echo = (req: { headers: Record<string, unknown> }) =>
      ++n % 2 === 1
        ? reply.raw(500, { error: 'overloaded', seen: req.headers })
        : reply.raw(401, { error: { message: `Incorrect API key provided: ${KEY}` } });
    stub.setSpeechHandler(echo);
    stub.setTranscriptionHandler(echo);
    fakeClock();
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' })).toMatchObject({ ok: false });
    expect(await transcribeSpeech({ organizationId: t.org.id, wav: recorded('hello') })).toMatchObject({ ok: false });
    stub.setSpeechHandler((req) => textToWav(req.input));
    expect(await synthesizeSpeech({ organizationId: t.org.id, text: 'hello' })).toMatchObject({ ok: true });
    vi.restoreAllMocks();

    const lines = written
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The search below searched a real log: the attempts (debug) and the failures (warn) of both steps.
    const attempts = lines.filter((l) => l.message === 'llm call attempt');
    expect(attempts.map((l) => [l.purpose, l.status])).toEqual([
      ['speech', 500],
      ['speech', 401],
      ['transcription', 500],
      ['transcription', 401],
      ['speech', 200],
    ]);
    expect(lines.filter((l) => l.message === 'llm call failed').map((l) => [l.level, l.purpose])).toEqual([
      ['WARN', 'speech'],
      ['WARN', 'transcription'],
    ]);
    expect(written.join('')).not.toContain(KEY);
    expect(written.join('')).not.toContain(KEY.slice(3));
  });
});
