/**
 * The shape of a telephony: what placing and steering a call takes. Below both implementations
 * (./chime.ts, the local phone line emulator) and the choice between them (./telephony.ts).
 */

export interface NewCall {
  /** E.164 number the call comes from (the deployment's `VOICE_FROM_NUMBER`). */
  fromNumber: string;
  /** E.164 number dialed (the phone connection's). */
  toNumber: string;
  /**
   * Strings (at most 20) the call-control handler gets on `NEW_OUTBOUND_CALL` as
   * `ActionData.Parameters.Arguments`. Later events carry them only if the handler returns them as
   * its `TransactionAttributes` (`callArguments` in chime-events.ts reads both).
   */
  arguments: Record<string, string>;
}

export interface Telephony {
  /** Places a call; answers once the call is under way (not answered), with its transaction id. */
  createCall(call: NewCall): Promise<{ transactionId: string }>;
  /**
   * Sends `args` (at most 20) to the call-control handler of a call under way, as a
   * `CALL_UPDATE_REQUESTED` event (asynchronously: the handler may not have run when this returns).
   * A call that has ended throws NotFoundError.
   */
  updateCall(transactionId: string, args: Record<string, string>): Promise<void>;
  /**
   * Whether this telephony knows the call, under way or ended: false for a call it has no record
   * of, lost with the process that held it (the local phone line is in memory: after a restart it
   * knows none of the calls placed before). Absent where the telephony cannot say (Chime: a call
   * it no longer knows answers an update with NotFound).
   */
  knowsCall?(transactionId: string): boolean;
}
