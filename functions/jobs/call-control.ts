import type { CallControlHandler, ChimeEvent, ChimeResponse } from '../../shared/telephony/chime-events.js';

/**
 * The SIP media application's endpoint: Chime invokes it with each event of a voice run's call and
 * runs the actions it answers.
 */
// replaced by the voice run engine
export const handler: CallControlHandler = async (_event: ChimeEvent): Promise<ChimeResponse> => ({
  SchemaVersion: '1.0',
  Actions: [],
});
