import { handleCallEvent } from '../../shared/domain/voice/call-control.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import type { ChimeEvent, ChimeResponse } from '../../shared/telephony/chime-events.js';

/** The SIP media application's endpoint: Chime's events of a voice run's call, answered with actions. */
export const handler = observedHandler(async (event: ChimeEvent): Promise<ChimeResponse> => handleCallEvent(event));
