import { ENV, optionalEnv } from '../config/env.js';
import { localTelephony } from './telephony.js';

/**
 * Whether this deployment can place calls, without loading any telephony client (the run routes
 * ask it): the local phone line emulator is installed, or the stack gave the Chime SIP media
 * application and the number to call from.
 */
export function telephonyConfigured(): boolean {
  return (
    localTelephony() !== undefined ||
    Boolean(optionalEnv(ENV.voiceFromNumber) && optionalEnv(ENV.sipMediaApplicationId))
  );
}
