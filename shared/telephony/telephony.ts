/**
 * How the service places and steers phone calls: one interface, two implementations. On AWS the
 * Amazon Chime SDK PSTN audio service (`CreateSipMediaApplicationCall`,
 * `UpdateSipMediaApplicationCall`, shared/telephony/chime.ts); locally the phone line emulator
 * (infra/local/phone-line.ts), which the local runtime installs with `useLocalTelephony`. Either
 * way the call-control handler (functions/jobs/call-control.ts) gets the same events and answers
 * with the same actions (shared/telephony/chime-events.ts).
 */

export interface NewCall {
  /** E.164 number the call comes from (the deployment's `VOICE_FROM_NUMBER`). */
  fromNumber: string;
  /** E.164 number dialed (the phone connection's). */
  toNumber: string;
  /** Passed to every invocation of the call-control handler as `CallDetails.TransactionAttributes` (strings only). */
  arguments: Record<string, string>;
}

export interface Telephony {
  /** Places a call; answers once the call is under way (not answered), with its transaction id. */
  createCall(call: NewCall): Promise<{ transactionId: string }>;
  /** Sends `arguments` to the call-control handler of a call under way, as a `CALL_UPDATE_REQUESTED` event. */
  updateCall(transactionId: string, args: Record<string, string>): Promise<void>;
}

let local: Telephony | undefined;

/** Installed by the local runtime and the tests: the phone line emulator (or a fake). */
export function useLocalTelephony(telephony: Telephony | undefined): void {
  local = telephony;
}

/** The installed emulator, if any. */
export function localTelephony(): Telephony | undefined {
  return local;
}
