import { ENV, optionalEnv } from '../config/env.js';
import { chimeTelephony } from './chime.js';
import { localTelephony, type Telephony, voiceFromNumber } from './telephony.js';

let chime: { sipMediaApplicationId: string; telephony: Telephony } | undefined;

/**
 * The telephony of this process: the installed local one if any, else the Chime SIP media
 * application when the deployment configured telephony (`VOICE_FROM_NUMBER` and
 * `SIP_MEDIA_APPLICATION_ID`, set by CDK together), else undefined: no telephony is configured.
 * The variables are read on each call (two lookups), so the local runtime and tests may set them
 * after load.
 */
export function telephony(): Telephony | undefined {
  const local = localTelephony();
  if (local) return local;
  const sipMediaApplicationId = optionalEnv(ENV.sipMediaApplicationId);
  if (!sipMediaApplicationId || !voiceFromNumber()) return undefined;
  if (chime?.sipMediaApplicationId !== sipMediaApplicationId) {
    chime = { sipMediaApplicationId, telephony: chimeTelephony(sipMediaApplicationId) };
  }
  return chime.telephony;
}
