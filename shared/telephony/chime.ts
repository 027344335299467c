import {
  ChimeSDKVoiceClient,
  CreateSipMediaApplicationCallCommand,
  UpdateSipMediaApplicationCallCommand,
} from '@aws-sdk/client-chime-sdk-voice';
import { NotFoundError } from '../errors.js';
import type { NewCall, Telephony } from './call.js';

let client: ChimeSDKVoiceClient | undefined;

/**
 * The Chime SDK Voice client of the process, created on first call (Lambda gives it its region and
 * credentials). Only `telephony()` of shared/telephony/telephony.ts reaches this module, so a bundle
 * that never calls it (one that asks `telephonyConfigured()`, the call-control function) holds no
 * Chime client: the SDK package has no side effects and esbuild drops it (test/infra/bundle-size.test.ts).
 */
export function chimeVoice(): ChimeSDKVoiceClient {
  return (client ??= new ChimeSDKVoiceClient({}));
}

/**
 * Telephony through the Amazon Chime SDK PSTN audio service: calls placed by the SIP media
 * application `sipMediaApplicationId`, whose endpoint is the call-control function. The SDK retries
 * throttling (`ThrottledClientException`, HTTP 429) and 5xx; what is left is thrown as the SDK
 * threw it, so the caller's job is retried, except a call that is no longer under way.
 */
export function chimeTelephony(sipMediaApplicationId: string): Telephony {
  return {
    async createCall(call: NewCall): Promise<{ transactionId: string }> {
      const out = await chimeVoice().send(
        new CreateSipMediaApplicationCallCommand({
          FromPhoneNumber: call.fromNumber,
          ToPhoneNumber: call.toNumber,
          SipMediaApplicationId: sipMediaApplicationId,
          // Reaches the call-control function on NEW_OUTBOUND_CALL as ActionData.Parameters.Arguments.
          ArgumentsMap: call.arguments,
        }),
      );
      const transactionId = out.SipMediaApplicationCall?.TransactionId;
      if (!transactionId) throw new Error('CreateSipMediaApplicationCall answered without a transaction id');
      return { transactionId };
    },

    async updateCall(transactionId: string, args: Record<string, string>): Promise<void> {
      try {
        await chimeVoice().send(
          new UpdateSipMediaApplicationCallCommand({
            SipMediaApplicationId: sipMediaApplicationId,
            TransactionId: transactionId,
            Arguments: args,
          }),
        );
      } catch (err) {
        // The transaction is gone: the call ended (either side hung up) before the update.
        if ((err as { name?: unknown }).name === 'NotFoundException') {
          throw new NotFoundError(`call ${transactionId} is no longer under way`);
        }
        throw err;
      }
    },
  };
}
