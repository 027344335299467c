import { markQueued, stepItems, writeStep } from '../../../db/run-steps.js';
import type { RunSession } from '../../../db/runs.js';
import { enqueueRunJobs } from '../../../queue/run-queue.js';
import { runEvaluation } from '../../evaluation/evaluator.js';
import { afterCounted } from '../run-finish.js';
import { simulateUserTurn } from '../simulator.js';
import { carriedTurns } from '../step-context.js';
import type { Channel } from './channel.js';
import { countSession, planClose, writeClose } from './closing.js';
import { factsOf, loadStep, turnsOf, type JobContext, type StepContext, type StepJob } from './context.js';
import { decide, steps } from './decide.js';
import { httpChannel } from './http-channel.js';
import { simulatedRecord, type Effect, type SessionEvent, type SessionState } from './machine.js';
import { phoneChannel } from './phone-channel.js';

export type { JobContext } from './context.js';

const channels: Record<'HTTP' | 'PHONE', Channel> = { HTTP: httpChannel, PHONE: phoneChannel };

/**
 * A session's step job. The session item holds its progress (`_seq` steps done); a job names the
 * step it performs, and every write of a step is conditional on the session still being at that
 * step, so a redelivered or stale job changes nothing. The job reads once (its session, whether
 * the run was cancelled, the secrets; the rest comes with the job), then gives the job's event to
 * `decide` and carries out the decision's effects, feeding what they yield back to `decide`,
 * until a decision yields nothing more: steps that call no agent run on in the same job, and
 * after an agent call the next step is enqueued unless all that is left is closing the session.
 */
export async function processStep(job: StepJob, jctx: JobContext = {}): Promise<void> {
  const loaded = await loadStep(job);
  if (!loaded) return;
  const { ctx } = loaded;
  const channel = channels[loaded.session.channel === 'PHONE' ? 'PHONE' : 'HTTP'];
  let state: SessionState = { session: loaded.session, facts: factsOf(ctx, loaded.session, jctx) };
  let event: SessionEvent | undefined = eventOf(job, loaded.session, ctx.cancelled);
  const stepping = steps(state, event);
  try {
    while (event) {
      const { next, effects } = decide({ ...state, facts: factsOf(ctx, state.session, jctx) }, event);
      event = undefined;
      let moved = false;
      for (const effect of effects) {
        const outcome = await apply(effect, { ctx, jctx, channel, state: next, job });
        // Another delivery moved the session on: this job's decision stands no more.
        if (outcome === 'moved') {
          moved = true;
          break;
        }
        if (outcome) event = outcome;
      }
      // The session as this job knows it: as the decision left it, once its effects were carried out.
      if (moved) event = undefined;
      else state = next;
    }
  } finally {
    // A session that ended hangs up its call (once the end is recorded).
    if (stepping) await channel.settle(state.session);
  }
}

/** The event a job brings: its step, a cancel read with it, or news of a PHONE call. */
function eventOf(job: StepJob, session: RunSession, cancelled: boolean): SessionEvent {
  const voice = job.voice;
  const call = voice?.transactionId ? { transactionId: voice.transactionId } : {};
  // The end of a call (or a failed action, or a deadline) applies to whatever step its session is at.
  switch (voice?.event) {
    case undefined:
      if (cancelled) return { type: 'cancel', seq: job.seq };
      return { type: 'stepDelivered', seq: job.seq, ...(job.attempts ? { attempts: job.attempts } : {}) };
    case 'answer': {
      const { turn, agentAudioKey, head, headAudioKey } = voice;
      const part = { ...(head ? { head } : {}), ...(headAudioKey ? { headAudioKey } : {}) };
      return { type: 'callAnswered', seq: job.seq, turn, agentAudioKey, ...part, ...call };
    }
    case 'hangup':
      return {
        type: 'hangUp',
        seq: session._seq,
        answered: voice.answered,
        ...(voice.recordingKey ? { recordingKey: voice.recordingKey } : {}),
        ...(voice.heard !== undefined ? { heard: voice.heard } : {}),
        ...call,
      };
    case 'failed':
      return { type: 'callFailed', seq: session._seq, error: voice.error, ...call };
    case 'deadline':
      return {
        type: 'deadline',
        seq: session._seq,
        deadlineSeq: voice.seq,
        turn: voice.turn,
        dueAt: voice.dueAt,
        ...call,
      };
  }
}

interface Run {
  ctx: StepContext;
  jctx: JobContext;
  channel: Channel;
  state: SessionState;
  job: StepJob;
}

type Yield = SessionEvent | 'moved' | undefined;
type Handler<E extends Effect> = (effect: E, run: Run) => Promise<Yield>;

/**
 * The effects the runner carries out itself, one handler per kind: the state change (one
 * conditional transaction), the queue, the simulated user, the close (planned, then written), the
 * count and the run's end.
 * Every other effect is the session's channel's.
 */
const engineEffects: { [K in Effect['type']]?: Handler<Extract<Effect, { type: K }>> } = {
  async write(effect, run) {
    if (!(await writeStep(effect.change))) {
      for (const undo of effect.onMoved ?? []) await apply(undo, run);
      return 'moved';
    }
    if (effect.change.turn) run.channel.remember(run.ctx, effect.change.turn);
    return effect.after === 'stop' ? undefined : { type: 'written', called: effect.after === 'called' };
  },
  async enqueueStep(effect, { ctx, job }) {
    await enqueueRunJobs(
      [
        {
          kind: 'step',
          organizationId: job.organizationId,
          runId: job.runId,
          sessionId: job.sessionId,
          seq: effect.seq,
          ...(effect.attempts ? { attempts: effect.attempts } : {}),
          ...carryOf(ctx, effect),
        },
      ],
      effect.delayMs,
    );
    if (effect.mark) await markQueued(job.sessionId, effect.seq);
    return undefined;
  },
  simulateUser: (effect, { ctx, state }) => simulate(effect, ctx, state.session),
  async plan(effect, { ctx, state }) {
    const evaluations = await planClose(ctx, state.session, effect.withTurn);
    return { type: 'planned', evaluations, ...(effect.withTurn ? { withTurn: effect.withTurn } : {}) };
  },
  async close(effect) {
    const written = await writeClose(effect.close);
    if (written === 'moved') return 'moved';
    return written === 'closed' ? { type: 'closed' } : { type: 'counted', last: written === 'last' };
  },
  async count(_, { ctx, state }) {
    const s = state.session;
    const counted = await countSession(s, ctx.run, ctx.rec.carry.planIndex, (id) => runEvaluation(s.id, id));
    return counted === 'moved' ? 'moved' : { type: 'counted', last: counted === 'last' };
  },
  async finishRun(effect, { ctx, state }) {
    await afterCounted(ctx.run, state.session.id, effect.counted);
    return undefined;
  },
};

/** Carries out one effect: 'moved' when a write found the session moved on; an event when the effect yields one. */
function apply(effect: Effect, run: Run): Promise<Yield> {
  const own = engineEffects[effect.type] as Handler<Effect> | undefined;
  return own ? own(effect, run) : run.channel.perform(effect, run.ctx, run.state, run.jctx);
}

/** What the next job carries: the records (and, after a turn, the conversation so far). */
function carryOf(ctx: StepContext, effect: Extract<Effect, { type: 'enqueueStep' }>) {
  if (effect.withTurns) {
    const turns = ctx.turns ? carriedTurns(ctx.turns.map((t) => ({ input: t.input, output: t.output }))) : undefined;
    return { carry: { ...ctx.rec.carry, turns } };
  }
  return ctx.rec.carry ? { carry: ctx.rec.carry } : {};
}

/** Asks the simulated user; what it says is written with the settlement of its credits. */
async function simulate(
  effect: Extract<Effect, { type: 'simulateUser' }>,
  ctx: StepContext,
  s: RunSession,
): Promise<SessionEvent> {
  const tc = ctx.rec.testCase;
  const turns = await turnsOf(ctx, s);
  const result = await simulateUserTurn({
    organizationId: s.organizationId,
    persona: tc?.userPersona ?? ctx.rec.test?.customUserPersona ?? undefined,
    goal: tc?.goal ?? undefined,
    scenario: tc?.scenario ?? undefined,
    stoppingCriterias: tc?.stoppingCriterias ?? [],
    languageCode: tc?.languageCode ?? ctx.rec.test?.languageCode,
    conversation: turns.map((t) => ({ input: t.input, output: t.output ?? '' })),
    opening: effect.index === 1,
    ...(ctx.monthlyCredits !== undefined ? { monthlyCredits: ctx.monthlyCredits } : {}),
    record: (answer) => stepItems(simulatedRecord(effect, answer)),
  });
  return { type: 'userSimulated', index: effect.index, result };
}
