import { BadRequestException, NotFoundException } from '@aws-sdk/client-chime-sdk-voice';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { clock } from '../../shared/domain/common/clock.js';
import type { CallControlHandler } from '../../shared/telephony/chime-events.js';
import { E164, type NewCall, type Telephony } from '../../shared/telephony/telephony.js';
import { twilioSid } from './media-stream.js';
import { PhoneCall, type PhoneCallInfo } from './phone-call.js';

/**
 * The local phone line: what `npm start` uses in place of the Amazon Chime SDK PSTN audio service.
 * `createCall` and `updateCall` behave as `CreateSipMediaApplicationCall` and
 * `UpdateSipMediaApplicationCall` do; the call-control handler gets the same events and its
 * actions are carried out here. A number is dialed by connecting to the agent's WebSocket URL
 * with the Twilio Media Streams protocol (infra/local/media-stream.ts); each call runs as
 * infra/local/phone-call.ts describes.
 */

export type { PhoneCallInfo } from './phone-call.js';

/** The environment variable mapping phone numbers to the agents' WebSocket URLs. */
export const LOCAL_PHONE_AGENTS = 'LOCAL_PHONE_AGENTS';

export interface PhoneLineOptions {
  /** The call-control handler, invoked as Chime invokes a SIP media application's Lambda. */
  handler: CallControlHandler;
  /** E.164 number → `ws://` or `wss://` URL of the agent that answers it. */
  agents: Record<string, string>;
  readObject(bucket: string, key: string): Promise<Uint8Array>;
  writeObject(bucket: string, key: string, bytes: Uint8Array): Promise<void>;
  /** How long a call may ring before it counts as not answered (60 s). */
  answerTimeoutMs?: number;
  /** The wall clock of events and recording names (the service clock). */
  now?: () => Date;
}

export interface PhoneLine extends Telephony {
  /** Whether this line placed the call (a new line, after a restart, knows none of the calls before it). */
  knowsCall(transactionId: string): boolean;
  /** What each call did so far: state, events, recordings (the last 200 calls). */
  calls(): PhoneCallInfo[];
  /** Ends every call without telling the handler, and refuses new ones. */
  close(): Promise<void>;
}

const KEPT_CALLS = 200;

export function createPhoneLine(options: PhoneLineOptions): PhoneLine {
  const agents = checkAgents(options.agents, 'agents');
  const answerTimeoutMs = options.answerTimeoutMs ?? 60_000;
  const env = {
    handler: options.handler,
    readObject: options.readObject,
    writeObject: options.writeObject,
    now: options.now ?? (() => clock.now()),
    accountSid: twilioSid('AC'),
  };
  const calls = new Map<string, PhoneCall>();
  /** Every call placed by this line, those forgotten since included (`knowsCall`). */
  const placed = new Set<string>();
  let closed = false;

  const forgetOldCalls = () => {
    for (const [id, call] of calls) {
      if (calls.size <= KEPT_CALLS) return;
      if (call.ended) calls.delete(id);
    }
  };

  return {
    async createCall(call: NewCall) {
      if (closed) throw new Error('the local phone line is closed');
      for (const [name, number] of [
        ['FromPhoneNumber', call.fromNumber],
        ['ToPhoneNumber', call.toNumber],
      ] as const)
        if (!E164.test(number))
          throw new BadRequestException({
            message: `${name} must be an E.164 number`,
            $metadata: { httpStatusCode: 400 },
          });
      forgetOldCalls();
      const phoneCall = new PhoneCall(env, call, agents[call.toNumber]);
      calls.set(phoneCall.transactionId, phoneCall);
      placed.add(phoneCall.transactionId);
      phoneCall.start(answerTimeoutMs);
      return { transactionId: phoneCall.transactionId };
    },

    async updateCall(transactionId: string, args: Record<string, string>) {
      const call = calls.get(transactionId);
      if (!call || call.ended)
        throw new NotFoundException({
          message: `No call in progress has the transaction id ${transactionId}.`,
          $metadata: { httpStatusCode: 404 },
        });
      call.update(args);
    },

    knowsCall: (transactionId) => placed.has(transactionId),

    calls: () => [...calls.values()].map((call) => call.snapshot()),

    async close() {
      closed = true;
      await Promise.all([...calls.values()].map((call) => call.close()));
    },
  };
}

/** The agents' map checked: E.164 numbers to ws:// or wss:// URLs; errors name `source`. */
function checkAgents(agents: unknown, source: string): Record<string, string> {
  const shape = `${source} must map E.164 numbers to ws:// or wss:// URLs, e.g. {"+15550100": "ws://127.0.0.1:8765/media"}`;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) throw new Error(shape);
  const checked: Record<string, string> = {};
  for (const [number, url] of Object.entries(agents)) {
    if (!E164.test(number)) throw new Error(`${source}: "${number}" is not an E.164 number (+ and up to 15 digits)`);
    let protocol: string | undefined;
    try {
      protocol = typeof url === 'string' ? new URL(url).protocol : undefined;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'ws:' && protocol !== 'wss:')
      throw new Error(`${source}: the agent of ${number} must be a ws:// or wss:// URL`);
    checked[number] = url as string;
  }
  return checked;
}

/** `LOCAL_PHONE_AGENTS` parsed; unset or blank, no number answers. */
export function parseLocalPhoneAgents(value: string | undefined): Record<string, string> {
  if (value === undefined || value.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new Error(`${LOCAL_PHONE_AGENTS} is not valid JSON (${(error as Error).message})`);
  }
  return checkAgents(parsed, LOCAL_PHONE_AGENTS);
}

/** Reads and writes objects of any bucket through the service's S3 client (the local s3rver under `npm start`). */
export const s3Objects: Pick<PhoneLineOptions, 'readObject' | 'writeObject'> = {
  async readObject(bucket, key) {
    const { s3 } = await import('../../shared/storage/s3.js');
    const out = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!out.Body) throw new Error(`s3://${bucket}/${key} has no body`);
    return out.Body.transformToByteArray();
  },
  async writeObject(bucket, key, bytes) {
    const { s3 } = await import('../../shared/storage/s3.js');
    await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: 'audio/wav' }));
  },
};

/** The phone line of `npm start`: agents from `LOCAL_PHONE_AGENTS`, audio in the service's S3. */
export function phoneLineFromEnv(
  options: Omit<PhoneLineOptions, 'agents' | 'readObject' | 'writeObject'> &
    Partial<Pick<PhoneLineOptions, 'readObject' | 'writeObject'>>,
  env: NodeJS.ProcessEnv = process.env,
): PhoneLine {
  return createPhoneLine({ ...s3Objects, ...options, agents: parseLocalPhoneAgents(env[LOCAL_PHONE_AGENTS]) });
}
