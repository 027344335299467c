/**
 * How the service places and steers phone calls: one interface, two implementations. On AWS the
 * Amazon Chime SDK PSTN audio service (`CreateSipMediaApplicationCall`,
 * `UpdateSipMediaApplicationCall`, shared/telephony/chime.ts); locally the phone line emulator
 * (infra/local/phone-line.ts), which the local runtime installs with `useLocalTelephony`. Either
 * way the call-control handler (functions/jobs/call-control.ts) gets the same events and answers
 * with the same actions (shared/telephony/chime-events.ts).
 */

import { ENV, optionalEnv } from '../config/env.js';
import { chimeTelephony } from './chime.js';
import type { Telephony } from './call.js';

export type { NewCall, Telephony } from './call.js';

let local: Telephony | undefined;
let localSpeaks = true;

/**
 * Installed by the local runtime and the tests: the phone line emulator (or a fake). `speaks`:
 * whether a phone run can speak and listen (its speech goes through the LLM endpoint; the local
 * runtime without `LLM_BASE_URL` cannot), else no phone run is accepted.
 */
export function useLocalTelephony(telephony: Telephony | undefined, options: { speaks?: boolean } = {}): void {
  local = telephony;
  localSpeaks = options.speaks ?? true;
}

/** The installed emulator, if any. */
export function localTelephony(): Telephony | undefined {
  return local;
}

/** An E.164 phone number: `+`, a country code and a subscriber number, at most 15 digits (Chime's pattern). */
export const E164 = /^\+[1-9]\d{1,14}$/;

/** The deployment's own phone number, that voice runs call from (`VOICE_FROM_NUMBER`); undefined when unset. */
export function voiceFromNumber(): string | undefined {
  return optionalEnv(ENV.voiceFromNumber);
}

/**
 * Whether phone runs can be placed: the local emulator is installed and can speak, or the deployment gave both
 * its phone number and its SIP media application. Unlike `telephony()`, a bundle that only asks
 * this carries no Chime client.
 */
export function telephonyConfigured(): boolean {
  return (
    (local !== undefined && localSpeaks) ||
    (voiceFromNumber() !== undefined && optionalEnv(ENV.sipMediaApplicationId) !== undefined)
  );
}

let chime: { sipMediaApplicationId: string; telephony: Telephony } | undefined;

/**
 * The telephony of this process: the installed local one if any, else the Chime SIP media
 * application when the deployment configured telephony (`VOICE_FROM_NUMBER` and
 * `SIP_MEDIA_APPLICATION_ID`, set by CDK together), else undefined: no telephony is configured.
 * The variables are read on each call (two lookups), so the local runtime and tests may set them
 * after load.
 */
export function telephony(): Telephony | undefined {
  if (local) return local;
  const sipMediaApplicationId = optionalEnv(ENV.sipMediaApplicationId);
  if (!sipMediaApplicationId || !voiceFromNumber()) return undefined;
  if (chime?.sipMediaApplicationId !== sipMediaApplicationId) {
    chime = { sipMediaApplicationId, telephony: chimeTelephony(sipMediaApplicationId) };
  }
  return chime.telephony;
}
