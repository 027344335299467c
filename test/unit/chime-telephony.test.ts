import {
  ChimeSDKVoiceClient,
  CreateSipMediaApplicationCallCommand,
  NotFoundException,
  ThrottledClientException,
  UpdateSipMediaApplicationCallCommand,
} from '@aws-sdk/client-chime-sdk-voice';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NotFoundError } from '../../shared/errors.js';
import { chimeTelephony, chimeVoice } from '../../shared/telephony/chime.js';
import {
  E164,
  telephony,
  telephonyConfigured,
  useLocalTelephony,
  voiceFromNumber,
  type Telephony,
} from '../../shared/telephony/telephony.js';

// The Chime implementation of Telephony over the SDK: what it sends and how it reads the answers
// and errors. The SDK's own retries are not retested (the mock replaces `send`).
vi.hoisted(() => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'secret',
  });
});

const SMA = '8f6a1c2e-5d5e-4c37-9d1a-3c1b2a9e7f10';
const chime = mockClient(ChimeSDKVoiceClient);
afterEach(() => chime.reset());

const throttled = () =>
  new ThrottledClientException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429, attempts: 3 } });

describe('Chime telephony: placing a call', () => {
  it('sends CreateSipMediaApplicationCall from, to, the SIP media application and the arguments; answers the transaction id', async () => {
    chime.on(CreateSipMediaApplicationCallCommand).resolves({ SipMediaApplicationCall: { TransactionId: 'tx-1' } });
    const call = await chimeTelephony(SMA).createCall({
      fromNumber: '+14155550100',
      toNumber: '+442071838750',
      arguments: { sessionId: 'ses_1', runId: 'run_1' },
    });
    expect(call).toEqual({ transactionId: 'tx-1' });
    const sent = chime.commandCalls(CreateSipMediaApplicationCallCommand);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.args[0].input).toEqual({
      FromPhoneNumber: '+14155550100',
      ToPhoneNumber: '+442071838750',
      SipMediaApplicationId: SMA,
      ArgumentsMap: { sessionId: 'ses_1', runId: 'run_1' },
    });
  });

  it('fails when Chime answers without a transaction id (the call could never be updated)', async () => {
    chime.on(CreateSipMediaApplicationCallCommand).resolves({});
    await expect(
      chimeTelephony(SMA).createCall({ fromNumber: '+14155550100', toNumber: '+14155550199', arguments: {} }),
    ).rejects.toThrow('CreateSipMediaApplicationCall answered without a transaction id');
  });

  it('passes throttling and refusals on as the SDK threw them, so the job is retried', async () => {
    chime.on(CreateSipMediaApplicationCallCommand).rejects(throttled());
    const placing = chimeTelephony(SMA).createCall({
      fromNumber: '+14155550100',
      toNumber: '+14155550199',
      arguments: {},
    });
    await expect(placing).rejects.toBeInstanceOf(ThrottledClientException);
    await expect(placing).rejects.toMatchObject({
      name: 'ThrottledClientException',
      $metadata: { httpStatusCode: 429 },
    });
  });
});

describe('Chime telephony: updating a call', () => {
  it('sends UpdateSipMediaApplicationCall with the SIP media application, the transaction and the arguments', async () => {
    chime.on(UpdateSipMediaApplicationCallCommand).resolves({ SipMediaApplicationCall: { TransactionId: 'tx-1' } });
    await chimeTelephony(SMA).updateCall('tx-1', { turn: '2' });
    const sent = chime.commandCalls(UpdateSipMediaApplicationCallCommand);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.args[0].input).toEqual({
      SipMediaApplicationId: SMA,
      TransactionId: 'tx-1',
      Arguments: { turn: '2' },
    });
  });

  it('turns NotFound (the call has ended) into a NotFoundError naming the transaction', async () => {
    chime
      .on(UpdateSipMediaApplicationCallCommand)
      .rejects(new NotFoundException({ message: 'Transaction not found', $metadata: { httpStatusCode: 404 } }));
    const updating = chimeTelephony(SMA).updateCall('tx-gone', { turn: '3' });
    await expect(updating).rejects.toBeInstanceOf(NotFoundError);
    await expect(updating).rejects.toThrow('call tx-gone is no longer under way');
  });

  it('passes throttling on as the SDK threw it', async () => {
    chime.on(UpdateSipMediaApplicationCallCommand).rejects(throttled());
    await expect(chimeTelephony(SMA).updateCall('tx-1', {})).rejects.toMatchObject({
      name: 'ThrottledClientException',
    });
  });
});

describe('telephony of the process', () => {
  const saved = { from: process.env.VOICE_FROM_NUMBER, sma: process.env.SIP_MEDIA_APPLICATION_ID };
  beforeEach(() => {
    delete process.env.VOICE_FROM_NUMBER;
    delete process.env.SIP_MEDIA_APPLICATION_ID;
    useLocalTelephony(undefined);
  });
  afterEach(() => {
    if (saved.from === undefined) delete process.env.VOICE_FROM_NUMBER;
    else process.env.VOICE_FROM_NUMBER = saved.from;
    if (saved.sma === undefined) delete process.env.SIP_MEDIA_APPLICATION_ID;
    else process.env.SIP_MEDIA_APPLICATION_ID = saved.sma;
    useLocalTelephony(undefined);
  });

  it('is none without both VOICE_FROM_NUMBER and SIP_MEDIA_APPLICATION_ID', () => {
    expect(telephony()).toBeUndefined();
    expect(telephonyConfigured()).toBe(false);
    process.env.VOICE_FROM_NUMBER = '+14155550100';
    expect(telephony()).toBeUndefined();
    expect(telephonyConfigured()).toBe(false);
    delete process.env.VOICE_FROM_NUMBER;
    process.env.SIP_MEDIA_APPLICATION_ID = SMA;
    expect(telephony()).toBeUndefined();
    expect(telephonyConfigured()).toBe(false);
    process.env.VOICE_FROM_NUMBER = '';
    expect(telephony()).toBeUndefined();
  });

  it('is Chime on the configured SIP media application when both are set, and calls from VOICE_FROM_NUMBER', async () => {
    process.env.VOICE_FROM_NUMBER = '+14155550100';
    process.env.SIP_MEDIA_APPLICATION_ID = SMA;
    expect(telephonyConfigured()).toBe(true);
    expect(voiceFromNumber()).toBe('+14155550100');
    const t = telephony()!;
    expect(telephony()).toBe(t);
    chime.on(CreateSipMediaApplicationCallCommand).resolves({ SipMediaApplicationCall: { TransactionId: 'tx-9' } });
    await t.createCall({ fromNumber: voiceFromNumber()!, toNumber: '+14155550199', arguments: {} });
    expect(chime.commandCalls(CreateSipMediaApplicationCallCommand)[0]!.args[0].input).toMatchObject({
      SipMediaApplicationId: SMA,
      FromPhoneNumber: '+14155550100',
    });
  });

  it('is the installed local telephony first, whatever the variables say', () => {
    const local: Telephony = {
      createCall: async () => ({ transactionId: 'local-1' }),
      updateCall: async () => {},
    };
    useLocalTelephony(local);
    expect(telephony()).toBe(local);
    expect(telephonyConfigured()).toBe(true);
    process.env.VOICE_FROM_NUMBER = '+14155550100';
    process.env.SIP_MEDIA_APPLICATION_ID = SMA;
    expect(telephony()).toBe(local);
  });

  it('creates one Chime client, on first use', () => {
    expect(chimeVoice()).toBe(chimeVoice());
    expect(chimeVoice()).toBeInstanceOf(ChimeSDKVoiceClient);
  });
});

describe('E.164', () => {
  it('takes a +, a country code and at most 15 digits', () => {
    for (const ok of ['+14155550100', '+442071838750', '+861012345678901']) expect(E164.test(ok), ok).toBe(true);
    for (const bad of [
      '14155550100',
      '+04155550100',
      '+1 415 555 0100',
      '+1415555010012345',
      '+1',
      '',
      '+1-415-555-0100',
    ])
      expect(E164.test(bad), bad).toBe(false);
  });
});
