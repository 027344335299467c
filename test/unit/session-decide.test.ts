import { describe, expect, it } from 'vitest';
import type { RunSession } from '../../shared/db/runs.js';
import { decide } from '../../shared/domain/runs/session/decide.js';
import type { Effect, SessionEvent, SessionFacts, SessionState } from '../../shared/domain/runs/session/machine.js';

/** The session's state machine, state by state: (state, event) → (next, effects). No I/O. */

const NOW = '2026-01-01T00:00:00.000Z';

function session(over: Partial<RunSession> = {}): RunSession {
  return {
    id: 'ses_1',
    organizationId: 'org_1',
    productId: 'prd_1',
    versionId: 'ver_1',
    userId: 'usr_1',
    customId: null,
    testId: 'tst_1',
    testCaseId: 'tc_1',
    runId: 'run_1',
    repetition: 1,
    channel: 'HTTP',
    context: null,
    stoppingReason: null,
    recordingUri: null,
    error: null,
    status: 'PENDING',
    isProduction: false,
    metadata: {},
    turnCount: 0,
    lastTurnAt: null,
    closedAt: null,
    createdAt: NOW,
    _seq: 0,
    _queued: 0,
    _phase: 'RUNNING',
    _runId: 'run_1',
    ...over,
  } as RunSession;
}

function facts(over: Partial<SessionFacts> = {}): SessionFacts {
  return {
    channel: 'HTTP',
    cancelled: false,
    multi: false,
    maxTurns: 1,
    caseInput: { message: 'hi', input: { user_message: 'hi' } },
    testCaseId: 'tc_1',
    conversation: true,
    initialization: false,
    finalization: false,
    metricsNeedSpans: false,
    closeNow: true,
    run: { organizationId: 'org_1', runId: 'run_1', shards: 16 },
    planIndex: 0,
    now: NOW,
    nowMs: Date.parse(NOW),
    ...over,
  };
}

const state = (s: Partial<RunSession> = {}, f: Partial<SessionFacts> = {}): SessionState => ({
  session: session(s),
  facts: facts({ channel: s.channel === 'PHONE' ? 'PHONE' : 'HTTP', ...f }),
});

const delivered = (seq = 0): SessionEvent => ({ type: 'stepDelivered', seq });

/** What a case asserts: the effects' types in order, and (optionally) what they carry and the next session. */
interface Case {
  name: string;
  state: SessionState;
  event: SessionEvent;
  effects: Effect['type'][];
  carry?: (effects: Effect[]) => void;
  next?: Partial<RunSession>;
}

const written = (e: Effect[]) => (e[0] as Extract<Effect, { type: 'write' }>).change;
const closing = (e: Effect[]) => (e[0] as Extract<Effect, { type: 'close' }>).close;

/** An evaluation of metric met_1 of the session, as planned. */
function evaluation(status: 'SUCCESS' | 'PENDING', score: number | null) {
  return {
    id: `evl_${status}`,
    organizationId: 'org_1',
    sessionId: 'ses_1',
    inferenceResultId: null,
    metricId: 'met_1',
    monitorId: null,
    status,
    score,
    createdAt: NOW,
  } as never;
}

const CALL = { transactionId: 'tx1', seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav' };
const ENDED = { status: 'COMPLETED' as const, stoppingReason: 'max_iterations', error: null };
/** A PHONE SCENARIOS session of four turns at most, barging in after 500 ms, on its call. */
const barging = (s: Partial<RunSession> = {}) =>
  state(
    { channel: 'PHONE', _call: CALL, ...s },
    { multi: true, maxTurns: 4, phone: { agentSpeaksFirst: false, bargeInAfterMs: 500 } },
  );

const table: Record<string, Case[]> = {
  QUEUED: [
    {
      name: 'a delivered step calls the agent before any write',
      state: state({ _phase: 'QUEUED' }),
      event: delivered(),
      effects: ['callAgent'],
    },
    {
      name: 'a cancelled run fails it unstarted, counted from pending, then looks at the run',
      state: state({ _phase: 'QUEUED' }, { cancelled: true }),
      event: { type: 'cancel', seq: 0 },
      effects: ['write', 'finishRun'],
      carry: (e) =>
        expect(written(e)).toMatchObject({
          phase: 'QUEUED',
          set: { status: 'FAILED', stoppingReason: 'cancelled', _phase: 'DONE', closedAt: NOW },
          counts: [{ kind: 'done', status: 'FAILED', from: 'pending' }],
        }),
    },
    {
      name: 'its first write moves it to RUNNING and counts it started',
      state: state({ _phase: 'QUEUED' }, { multi: true, maxTurns: 3 }),
      event: {
        type: 'agentAnswered',
        step: 'CONVERSATION',
        user: { message: 'hi', input: {} },
        result: { kind: 'ok', extracted: {} },
        turn: { turn: { index: 1, output: 'hello', createdAt: NOW } as never, spans: [] },
      },
      effects: ['write', 'recordSpans'],
      carry: (e) =>
        expect(written(e)).toMatchObject({
          phase: 'QUEUED',
          set: { _phase: 'RUNNING', _seq: 1, turnCount: 1 },
          counts: [{ kind: 'start' }],
        }),
      next: { _phase: 'RUNNING', _seq: 1, turnCount: 1 },
    },
  ],
  RUNNING: [
    {
      name: 'a stale job (the session moved on) does nothing',
      state: state({ _seq: 3, _queued: 3 }),
      event: delivered(1),
      effects: [],
    },
    {
      name: 'a job whose step is done but whose next step was never queued queues it',
      state: state({ _seq: 2, _queued: 1 }),
      event: delivered(1),
      effects: ['enqueueStep'],
      carry: (e) => expect(e[0]).toMatchObject({ seq: 2, mark: true }),
    },
    {
      name: 'initialization comes first',
      state: state({}, { initialization: true }),
      event: delivered(),
      effects: ['callAgent'],
      carry: (e) => expect(e[0]).toMatchObject({ step: 'INITIALIZATION' }),
    },
    {
      name: 'no CONVERSATION connection ends it FAILED',
      state: state({}, { conversation: false }),
      event: delivered(),
      effects: ['write'],
      next: {
        _seq: 1,
        _end: { status: 'FAILED', stoppingReason: null, error: expect.stringContaining('CONVERSATION') },
      },
    },
    {
      name: 'a multi-turn case with no message of its own asks the simulated user',
      state: state({ turnCount: 1, _seq: 1 }, { multi: true, maxTurns: 5 }),
      event: delivered(1),
      effects: ['simulateUser'],
    },
    {
      name: 'a kept simulated message is used again (a redelivery asks nothing)',
      state: state({ turnCount: 1, _seq: 1, _userMessage: { seq: 1, message: 'again' } }, { multi: true, maxTurns: 5 }),
      event: delivered(1),
      effects: ['callAgent'],
      carry: (e) => expect(e[0]).toMatchObject({ user: { message: 'again' } }),
    },
    {
      name: 'past the last turn it ends COMPLETED with max_iterations',
      state: state({ turnCount: 5, _seq: 5 }, { multi: true, maxTurns: 5 }),
      event: delivered(5),
      effects: ['write'],
      next: { _end: { status: 'COMPLETED', stoppingReason: 'max_iterations', error: null } },
    },
    {
      name: 'a cancel ends it FAILED (cancelled) and it runs on to its close',
      state: state({ turnCount: 1, _seq: 1 }, { cancelled: true, multi: true, maxTurns: 5 }),
      event: { type: 'cancel', seq: 1 },
      effects: ['write'],
      next: { _end: { status: 'FAILED', stoppingReason: 'cancelled', error: expect.any(String) } },
    },
    {
      name: 'a call that goes back on the queue keeps its attempts',
      state: state(),
      event: {
        type: 'agentAnswered',
        step: 'CONVERSATION',
        user: { message: 'hi', input: {} },
        result: { kind: 'requeue', delayMs: 500, attempts: 2 },
      },
      effects: ['enqueueStep'],
      carry: (e) => expect(e[0]).toMatchObject({ seq: 0, delayMs: 500, attempts: 2 }),
    },
    {
      name: 'a failed call ends it FAILED naming the turn',
      state: state(),
      event: {
        type: 'agentAnswered',
        step: 'CONVERSATION',
        user: { message: 'hi', input: {} },
        result: { kind: 'failed', error: 'status 500' },
      },
      effects: ['write'],
      next: { _end: { status: 'FAILED', stoppingReason: null, error: 'CONVERSATION turn 1 failed: status 500' } },
    },
    {
      name: 'the last turn of a single-turn case is recorded with the close, then its spans',
      state: state(),
      event: {
        type: 'agentAnswered',
        step: 'CONVERSATION',
        user: { message: 'hi', input: {} },
        result: { kind: 'ok', extracted: {} },
        turn: { turn: { index: 1, output: 'hello', createdAt: NOW } as never, spans: [] },
      },
      effects: ['plan'],
      carry: (e) => expect(e[0]).toMatchObject({ withTurn: { turn: { index: 1 }, change: { set: { turnCount: 1 } } } }),
    },
    {
      name: 'a turn after which calls are left: recorded, then the next step goes on the queue',
      state: state({ turnCount: 1, _seq: 1 }, { multi: true, maxTurns: 5 }),
      event: { type: 'written', called: true },
      effects: ['enqueueStep'],
      carry: (e) => expect(e[0]).toMatchObject({ seq: 1, withTurns: true, mark: true }),
    },
    {
      name: 'an initialization answer is written with what it extracted; the customId is taken',
      state: state({}, { initialization: true }),
      event: { type: 'agentAnswered', step: 'INITIALIZATION', result: { kind: 'ok', extracted: {}, sessionId: 'abc' } },
      effects: ['write'],
      carry: (e) => expect(written(e)).toMatchObject({ customId: 'abc', set: { _initDone: true, customId: 'abc' } }),
    },
  ],
  ENDED: [
    {
      name: 'an ended conversation with a FINALIZATION due calls it',
      state: state({ _end: { status: 'COMPLETED', stoppingReason: 'completed', error: null } }, { finalization: true }),
      event: delivered(),
      effects: ['callAgent'],
      carry: (e) => expect(e[0]).toMatchObject({ step: 'FINALIZATION' }),
    },
    {
      name: 'otherwise its evaluations are planned for its close',
      state: state({ _end: { status: 'COMPLETED', stoppingReason: 'completed', error: null } }),
      event: delivered(),
      effects: ['plan'],
    },
    {
      name: 'a session ended by a cancel is closed with no evaluations, counted in the same write',
      state: state({ _end: { status: 'FAILED', stoppingReason: 'cancelled', error: 'the run was cancelled' } }),
      event: delivered(),
      effects: ['close'],
      carry: (e) =>
        expect(closing(e)).toMatchObject({
          settled: true,
          evaluations: [],
          change: { set: { status: 'FAILED', _phase: 'DONE', _seq: 1 }, counts: [{ kind: 'done', from: 'running' }] },
        }),
      next: { status: 'FAILED', _phase: 'DONE', closedAt: NOW },
    },
    {
      name: 'evaluations scored in code: the close settles and counts it in one write',
      state: state({ _end: { status: 'COMPLETED', stoppingReason: 'completed', error: null } }),
      event: { type: 'planned', evaluations: [evaluation('SUCCESS', 1)] },
      effects: ['close'],
      carry: (e) =>
        expect(closing(e)).toMatchObject({
          settled: true,
          change: {
            seq: 0,
            set: { status: 'COMPLETED', _phase: 'DONE', _evaluationIds: ['evl_SUCCESS'] },
            counts: [
              {
                kind: 'done',
                status: 'COMPLETED',
                outcomes: [{ metricId: 'met_1', status: 'SUCCESS', score: 1 }],
                evaluations: { planIndex: 0, count: 1 },
              },
            ],
          },
        }),
      next: { status: 'COMPLETED', _phase: 'DONE', _seq: 1 },
    },
    {
      name: 'an evaluation left to judge: the close leaves it EVALUATING, not counted',
      state: state({ _end: { status: 'COMPLETED', stoppingReason: 'completed', error: null } }),
      event: { type: 'planned', evaluations: [evaluation('PENDING', null)] },
      effects: ['close'],
      carry: (e) => expect(closing(e)).toMatchObject({ settled: false, change: { counts: [{ kind: 'spans' }] } }),
      next: { _phase: 'EVALUATING' },
    },
    {
      name: 'the last turn is written with its close, and its spans recorded after',
      state: state({ turnCount: 1, _seq: 1, _end: { status: 'COMPLETED', stoppingReason: 'completed', error: null } }),
      event: {
        type: 'planned',
        evaluations: [],
        withTurn: {
          session: session({ turnCount: 1, _seq: 1 }),
          change: { run: facts().run, session: session(), seq: 0, set: { turnCount: 1 }, turn: { index: 1 } as never },
          turn: { index: 1 } as never,
          spans: [{ name: 'tool' } as never, { name: 'llm' } as never],
        },
      },
      effects: ['close', 'recordSpans'],
      carry: (e) => {
        expect(closing(e)).toMatchObject({
          change: { seq: 0, set: { turnCount: 1, _phase: 'DONE' }, counts: [{ traces: { planIndex: 0, count: 2 } }] },
        });
        expect(e[1]).toMatchObject({ counted: true, spans: [{ name: 'tool' }, { name: 'llm' }] });
      },
    },
  ],
  EVALUATING: [
    {
      name: 'a delivered step scores and counts it',
      state: state({ _phase: 'EVALUATING', status: 'COMPLETED' }),
      event: delivered(),
      effects: ['count'],
    },
    {
      name: 'a close that left it scoring is followed by the scoring and the count',
      state: state({ _phase: 'EVALUATING', status: 'COMPLETED' }),
      event: { type: 'closed' },
      effects: ['count'],
    },
    {
      name: 'counted, not the last of its shard: the run is not looked at',
      state: state({ _phase: 'DONE', status: 'COMPLETED' }),
      event: { type: 'counted', last: false },
      effects: [],
    },
    {
      name: 'counted as the last of its shard: the run may be finished',
      state: state({ _phase: 'DONE', status: 'COMPLETED' }),
      event: { type: 'counted', last: true },
      effects: ['finishRun'],
      carry: (e) => expect(e[0]).toMatchObject({ counted: true }),
    },
    {
      name: 'counted on a run without shards: the run may be finished',
      state: state({ _phase: 'DONE', status: 'COMPLETED' }, { run: { organizationId: 'org_1', runId: 'run_1' } }),
      event: { type: 'counted', last: false },
      effects: ['finishRun'],
    },
  ],
  DONE: [
    {
      name: 'a late delivery only makes sure the run is finished',
      state: state({ _phase: 'DONE', status: 'COMPLETED' }),
      event: delivered(),
      effects: ['finishRun'],
    },
    {
      name: "a hang-up after the count keeps the call's recording",
      state: state({ _phase: 'DONE', status: 'COMPLETED', channel: 'PHONE' }),
      event: { type: 'hangUp', seq: 0, answered: true, recordingKey: 'k.wav' },
      effects: ['setRecording', 'finishRun'],
    },
  ],
  PHONE: [
    {
      name: 'a step speaks the case input',
      state: state({ channel: 'PHONE' }, { phone: { agentSpeaksFirst: false } }),
      event: delivered(),
      effects: ['speak'],
    },
    {
      name: 'no phone connection ends it FAILED',
      state: state({ channel: 'PHONE' }),
      event: delivered(),
      effects: ['write'],
      next: {
        _end: { status: 'FAILED', stoppingReason: null, error: 'PHONE: the version has no live phone connection' },
      },
    },
    {
      name: "a case whose context's bargeInAfterMs breaks the rule ends FAILED naming it, before any call",
      state: state(
        { channel: 'PHONE' },
        { phone: { agentSpeaksFirst: false, bargeInError: 'context.bargeInAfterMs …' } },
      ),
      event: delivered(),
      effects: ['write'],
      next: { _end: { status: 'FAILED', stoppingReason: null, error: 'PHONE: context.bargeInAfterMs …' } },
    },
    {
      name: 'the first utterance places the call before the step is written',
      state: state({ channel: 'PHONE' }, { phone: { agentSpeaksFirst: false } }),
      event: {
        type: 'spoken',
        turn: 1,
        user: { message: 'hi', input: {} },
        result: { ok: true, userAudioKey: 'u.wav', durationMs: 900 },
      },
      effects: ['placeCall'],
    },
    {
      name: 'a placed call is written (hung up if another delivery won), then its deadline queued',
      state: state({ channel: 'PHONE' }, { phone: { agentSpeaksFirst: false } }),
      event: {
        type: 'callPlaced',
        transactionId: 'tx1',
        call: { seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav', utteranceMs: 900 },
      },
      effects: ['write', 'enqueueDeadline'],
      carry: (e) => {
        expect(e[0]).toMatchObject({
          change: { firstCall: true },
          onMoved: [{ type: 'endCall', transactionId: 'tx1' }],
        });
        expect(e[1]).toMatchObject({ transactionId: 'tx1', turn: 1 });
      },
    },
    {
      name: "the agent's recorded answer is heard",
      state: state(
        { channel: 'PHONE', _call: { transactionId: 'tx1', seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav' } },
        { phone: { agentSpeaksFirst: false } },
      ),
      event: { type: 'callAnswered', seq: 0, turn: 1, agentAudioKey: 'a.wav', transactionId: 'tx1' },
      effects: ['hearAnswer'],
    },
    {
      name: "news of another delivery's call hangs that call up",
      state: state(
        { channel: 'PHONE', _call: { transactionId: 'tx1', seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav' } },
        { phone: { agentSpeaksFirst: false } },
      ),
      event: { type: 'callAnswered', seq: 0, turn: 1, agentAudioKey: 'a.wav', transactionId: 'tx2' },
      effects: ['endCall'],
    },
    {
      name: 'a hang-up before any answer ends it FAILED with no_answer, keeping the recording',
      state: state({ channel: 'PHONE' }, { phone: { agentSpeaksFirst: false } }),
      event: { type: 'hangUp', seq: 0, answered: false, recordingKey: 'r.wav' },
      effects: ['setRecording', 'write'],
      next: {
        _end: { status: 'FAILED', stoppingReason: 'no_answer', error: 'PHONE: the agent did not answer the call' },
      },
    },
    {
      name: 'a deadline for a call no longer waited on does nothing',
      state: state({ channel: 'PHONE', _seq: 2 }, { phone: { agentSpeaksFirst: false } }),
      event: { type: 'deadline', seq: 2, deadlineSeq: 1, turn: 1, dueAt: 0, transactionId: 'tx1' },
      effects: [],
    },
    {
      name: 'a deadline past due with no telephony ends it FAILED (no news)',
      state: state(
        { channel: 'PHONE', _call: { transactionId: 'tx1', seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav' } },
        { phone: { agentSpeaksFirst: false } },
      ),
      event: { type: 'callChecked', state: 'none', purpose: 'deadline', deadline: { dueAt: 0, turn: 1 } },
      effects: ['write'],
      next: { _end: { status: 'FAILED', stoppingReason: null, error: expect.stringContaining('no news of the call') } },
    },
    {
      name: 'a lost call ends it FAILED at once',
      state: state(
        { channel: 'PHONE', _call: { transactionId: 'tx1', seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav' } },
        { phone: { agentSpeaksFirst: false } },
      ),
      event: { type: 'callChecked', state: 'lost', purpose: 'redelivered' },
      effects: ['write'],
      next: { _end: { status: 'FAILED', stoppingReason: null, error: 'the call was lost: the service restarted' } },
    },
  ],
  'PHONE barge-in': [
    {
      name: "a later turn asks the call for its answer's head: the last latency plus bargeInAfterMs; the utterance's length is kept",
      state: barging({ turnCount: 1, _seq: 1, _lastLatencyMs: 600, _utteranceMs: [900] }),
      event: {
        type: 'spoken',
        turn: 2,
        user: { message: 'and then?', input: {} },
        result: { ok: true, userAudioKey: 'u2.wav', durationMs: 1200 },
      },
      effects: ['write', 'updateCall'],
      carry: (e) => {
        expect(written(e).set).toMatchObject({ _call: { turn: 2, headMs: 1100 }, _utteranceMs: [900, 1200] });
        expect(e[1]).toMatchObject({ args: { turn: '2', headMs: '1100' } });
      },
    },
    {
      name: 'the first turn is heard whole, its utterance kept',
      state: barging({ _call: undefined }),
      event: {
        type: 'callPlaced',
        transactionId: 'tx1',
        call: { seq: 0, turn: 1, message: 'hi', userAudioKey: 'u.wav', utteranceMs: 900 },
      },
      effects: ['write', 'enqueueDeadline'],
      carry: (e) => expect(written(e).set).toEqual({ _call: expect.anything(), _utteranceMs: [900] }),
    },
    {
      name: 'the last turn is heard whole: nothing comes after it to cut in',
      state: barging({ turnCount: 3, _seq: 3, _lastLatencyMs: 600 }),
      event: {
        type: 'spoken',
        turn: 4,
        user: { message: 'bye', input: {} },
        result: { ok: true, userAudioKey: 'u4.wav', durationMs: 500 },
      },
      effects: ['write', 'updateCall'],
      carry: (e) => expect((e[1] as Extract<Effect, { type: 'updateCall' }>).args).not.toHaveProperty('headMs'),
    },
    {
      name: "an answer's head is heard as such",
      state: barging({ turnCount: 1, _seq: 1, _call: { ...CALL, seq: 1, turn: 2 } }),
      event: { type: 'callAnswered', seq: 1, turn: 2, agentAudioKey: 'h.wav', head: true, transactionId: 'tx1' },
      effects: ['hearAnswer'],
      carry: (e) => expect(e[0]).toMatchObject({ turn: 2, agentAudioKey: 'h.wav', head: true }),
    },
    {
      name: 'a head with words in it is the turn, its latency kept for the next head',
      state: barging({ turnCount: 1, _seq: 1, _call: { ...CALL, seq: 1, turn: 2 } }),
      event: {
        type: 'answerHeard',
        head: true,
        result: {
          ok: true,
          empty: false,
          turn: { index: 2, output: 'I can he', latencyMs: 700, createdAt: NOW } as never,
        },
      },
      effects: ['write'],
      next: { turnCount: 2, _seq: 2, _lastLatencyMs: 700 },
    },
    {
      name: 'a head with no words yet waits for the rest of the answer',
      state: barging({ turnCount: 1, _seq: 1, _call: { ...CALL, seq: 1, turn: 2 } }),
      event: {
        type: 'answerHeard',
        head: true,
        result: { ok: true, empty: true, turn: { index: 2, output: '', latencyMs: null, createdAt: NOW } as never },
      },
      effects: [],
    },
    {
      name: 'ended, it hangs up and measures its barge-ins on the call recording before it closes',
      state: barging({ turnCount: 3, _seq: 4, _end: ENDED }),
      event: delivered(4),
      effects: ['measureBargeIns'],
      carry: (e) => expect(e[0]).toEqual({ type: 'measureBargeIns', attempt: 0, transactionId: 'tx1' }),
    },
    {
      name: "the call's hang-up brings the recording's key",
      state: barging({ turnCount: 3, _seq: 4, _end: ENDED }),
      event: { type: 'hangUp', seq: 4, answered: true, recordingKey: 'call.wav', transactionId: 'tx1' },
      effects: ['measureBargeIns'],
      carry: (e) => expect(e[0]).toMatchObject({ recordingKey: 'call.wav', attempt: 0 }),
    },
    {
      name: 'measured, it closes',
      state: barging({ turnCount: 3, _seq: 4, _end: ENDED }),
      event: { type: 'bargeInsMeasured', found: true, attempt: 0 },
      effects: ['plan'],
    },
    {
      name: 'a recording not there yet is looked for again a little later, counting the looks',
      state: barging({ turnCount: 3, _seq: 4, _end: ENDED }),
      event: { type: 'bargeInsMeasured', found: false, attempt: 2 },
      effects: ['enqueueStep'],
      carry: (e) => expect(e[0]).toEqual({ type: 'enqueueStep', seq: 4, delayMs: 3000, attempts: 3 }),
    },
    {
      name: 'that step looks again with its count',
      state: barging({ turnCount: 3, _seq: 4, _end: ENDED }),
      event: { type: 'stepDelivered', seq: 4, attempts: 3 },
      effects: ['measureBargeIns'],
      carry: (e) => expect(e[0]).toMatchObject({ attempt: 3 }),
    },
    {
      name: 'after the last look it closes without',
      state: barging({ turnCount: 3, _seq: 4, _end: ENDED }),
      event: { type: 'bargeInsMeasured', found: false, attempt: 9 },
      effects: ['plan'],
    },
    {
      name: 'one that never got past its first turn has nothing to measure: it closes at once',
      state: barging({ turnCount: 1, _seq: 2, _end: ENDED }),
      event: delivered(2),
      effects: ['plan'],
    },
    {
      name: 'a PHONE session that does not barge in closes at once',
      state: state(
        { channel: 'PHONE', turnCount: 3, _seq: 4, _end: ENDED, _call: CALL },
        { phone: { agentSpeaksFirst: false } },
      ),
      event: delivered(4),
      effects: ['plan'],
    },
  ],
};

describe('decide: a session state by state', () => {
  for (const [name, cases] of Object.entries(table)) {
    describe(name, () => {
      for (const c of cases) {
        it(c.name, () => {
          const before = structuredClone(c.state);
          const decision = decide(c.state, c.event);
          expect(decision.effects.map((e) => e.type)).toEqual(c.effects);
          c.carry?.(decision.effects);
          if (c.next) expect(decision.next.session).toMatchObject(c.next);
          // Pure: the state it was given is left as it was.
          expect(c.state).toEqual(before);
        });
      }
    });
  }
});
