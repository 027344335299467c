import type { RunSession } from '../../../db/runs.js';
import type { JobContext, StepContext } from './context.js';
import type { Effect, SessionEvent, SessionState } from './machine.js';
import type { Turn } from '../../../schemas/sessions.js';

/**
 * How a session talks to its agent: HTTP (the service calls the agent's endpoint) or PHONE (the
 * service dials the agent's number). A channel performs the effects that are its own (call the
 * agent; speak, place, update or end a call; hear an answer) and answers with the event that
 * happened, which the runner gives back to `decide`. A channel never writes the session's state.
 */
export interface Channel {
  perform(effect: Effect, ctx: StepContext, state: SessionState, jctx: JobContext): Promise<SessionEvent | undefined>;
  /** The turn a write recorded: the job knows the session's turns for its next step. */
  remember(ctx: StepContext, turn: Turn): void;
  /** After the step, whatever happened: a PHONE session that ended hangs up its call. */
  settle(session: RunSession): Promise<void>;
}
