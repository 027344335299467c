import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleCallEvent, PAUSE_MS, type SessionCall } from '../../shared/domain/voice/call-control.js';
import type { ChimeEvent } from '../../shared/telephony/chime-events.js';
import { localRunQueue } from '../../infra/local/queues.js';
import { bucketName } from '../../shared/storage/s3.js';

/**
 * The call-control handler against the event shapes of the Chime SDK PSTN audio service's guide:
 * what each event answers, what it tells the session's step, and that an invocation Chime retries
 * answers the same and queues nothing the step would count twice.
 */

const args = {
  organizationId: 'org_1',
  runId: 'run_1',
  sessionId: 'sess_1',
  seq: '0',
  turn: '1',
  userAudioKey: 'orgs/org_1/voice/sess_1/1-user.wav',
};
const PREFIX = 'orgs/org_1/voice/sess_1/';

let sequence = 0;
function event(
  type: ChimeEvent['InvocationEventType'],
  actionData?: ChimeEvent['ActionData'],
  attributes?: Record<string, string>,
): ChimeEvent {
  return {
    SchemaVersion: '1.0',
    Sequence: ++sequence,
    InvocationEventType: type,
    ...(actionData ? { ActionData: actionData } : {}),
    CallDetails: {
      TransactionId: 'tx-1',
      ...(attributes ? { TransactionAttributes: attributes } : {}),
      AwsAccountId: '123456789012',
      AwsRegion: 'us-east-1',
      SipMediaApplicationId: 'sma-1',
      Participants: [
        {
          CallId: 'call-1',
          ParticipantTag: 'LEG-A',
          To: '+15550100001',
          From: '+15550100000',
          Direction: 'Outbound',
          StartTimeInMilliseconds: '1764158400000',
          Status: 'Connected',
        },
      ],
    },
  };
}

const queued = () => localRunQueue.messages.map((m) => JSON.parse(m.body));

beforeEach(() => {
  localRunQueue.messages.length = 0;
});
afterEach(() => {
  localRunQueue.messages.length = 0;
});

/** The session's call as CALL_ANSWERED reads it (the integration tests read it from the table). */
const waitingOn =
  (transactionId: string | undefined, ended = false) =>
  async (sessionId: string): Promise<SessionCall | undefined> =>
    sessionId === args.sessionId ? { transactionId, ended } : undefined;

describe('call control', () => {
  it('keeps the call arguments of NEW_OUTBOUND_CALL as transaction attributes, and starts recording once answered', async () => {
    const created = await handleCallEvent(
      event('NEW_OUTBOUND_CALL', { Type: 'CallCreateRequest', Parameters: { Arguments: args } }),
    );
    expect(created).toEqual({ SchemaVersion: '1.0', Actions: [], TransactionAttributes: args });
    const answered = await handleCallEvent(event('CALL_ANSWERED', undefined, args), waitingOn('tx-1'));
    expect(answered.Actions).toEqual([
      {
        Type: 'StartCallRecording',
        Parameters: {
          CallId: 'call-1',
          Track: 'BOTH',
          Destination: { Type: 'S3', Location: `${bucketName}/${PREFIX}call` },
        },
      },
    ]);
    expect(answered.TransactionAttributes).toEqual({ ...args, answered: '1' });
    expect(queued()).toEqual([]);
  });

  it('plays the utterance and records the answer once recording, keeping where the recording goes', async () => {
    const attributes = { ...args, answered: '1' };
    const location = `${bucketName}/${PREFIX}call/2026/11/26/20261126T120000_tx-1_call-1.wav`;
    const out = await handleCallEvent(
      event(
        'ACTION_SUCCESSFUL',
        {
          Type: 'StartCallRecording',
          Parameters: { CallId: 'call-1', Track: 'BOTH', Destination: { Type: 'S3', Location: `${bucketName}/x` } },
          CallRecordingDestination: { Type: 'S3', Location: location },
        },
        attributes,
      ),
    );
    expect(out.Actions).toEqual([
      {
        Type: 'PlayAudio',
        Parameters: {
          CallId: 'call-1',
          ParticipantTag: 'LEG-A',
          AudioSource: { Type: 'S3', BucketName: bucketName, Key: args.userAudioKey },
        },
      },
      {
        Type: 'RecordAudio',
        Parameters: {
          CallId: 'call-1',
          DurationInSeconds: 30,
          SilenceDurationInSeconds: 2,
          SilenceThreshold: 200,
          RecordingTerminators: ['#'],
          RecordingDestination: { Type: 'S3', BucketName: bucketName, Prefix: `${PREFIX}1-agent` },
        },
      },
    ]);
    expect(out.TransactionAttributes).toEqual({
      ...attributes,
      recordingKey: `${PREFIX}call/2026/11/26/20261126T120000_tx-1_call-1.wav`,
    });
  });

  it('records the greeting first when the agent speaks first, then plays', async () => {
    const attributes = { ...args, answered: '1', agentSpeaksFirst: '1' };
    const recording = await handleCallEvent(
      event(
        'ACTION_SUCCESSFUL',
        { Type: 'StartCallRecording', CallRecordingDestination: { Type: 'S3', Location: `${bucketName}/k.wav` } },
        attributes,
      ),
    );
    expect(recording.Actions.map((a) => a.Type)).toEqual(['RecordAudio']);
    expect((recording.Actions[0]!.Parameters as any).RecordingDestination.Prefix).toBe(`${PREFIX}greeting`);
    const greeted = await handleCallEvent(
      event(
        'ACTION_SUCCESSFUL',
        {
          Type: 'RecordAudio',
          RecordingDestination: { Type: 'S3', BucketName: bucketName, Key: `${PREFIX}greeting.wav` },
        },
        recording.TransactionAttributes,
      ),
    );
    expect(greeted.Actions.map((a) => a.Type)).toEqual(['PlayAudio', 'RecordAudio']);
    expect(greeted.TransactionAttributes?.greeted).toBe('1');
    // The greeting is not a turn: nothing goes to the session.
    expect(queued()).toEqual([]);
  });

  it('sends a recorded answer to the session step and pauses; a retried invocation answers the same and queues the same job', async () => {
    const attributes = { ...args, answered: '1' };
    const answer = event(
      'ACTION_SUCCESSFUL',
      {
        Type: 'RecordAudio',
        Parameters: { CallId: 'call-1' },
        RecordingDestination: { Type: 'S3', BucketName: bucketName, Key: `${PREFIX}1-agent.wav` },
      },
      attributes,
    );
    const first = await handleCallEvent(answer);
    const again = await handleCallEvent(answer);
    expect(first).toEqual(again);
    expect(first.Actions).toEqual([
      { Type: 'Pause', Parameters: { CallId: 'call-1', DurationInMilliseconds: PAUSE_MS } },
    ]);
    const jobs = queued();
    expect(jobs).toHaveLength(2);
    // Both deliveries name the same step and turn: the step records the turn once (conditional on its step).
    expect(jobs[0]).toEqual(jobs[1]);
    expect(jobs[0]).toEqual({
      kind: 'step',
      organizationId: 'org_1',
      runId: 'run_1',
      sessionId: 'sess_1',
      seq: 0,
      voice: { event: 'answer', turn: 1, agentAudioKey: `${PREFIX}1-agent.wav`, transactionId: 'tx-1' },
    });
    // A pause that ends before the step updated the call pauses again.
    const paused = await handleCallEvent(event('ACTION_SUCCESSFUL', { Type: 'Pause' }, attributes));
    expect(paused.Actions.map((a) => a.Type)).toEqual(['Pause']);
  });

  it('plays the next utterance on CALL_UPDATE_REQUESTED, or hangs up', async () => {
    const attributes = { ...args, answered: '1' };
    const next = { action: 'play', seq: '1', turn: '2', userAudioKey: `${PREFIX}2-user.wav` };
    const played = await handleCallEvent(
      event('CALL_UPDATE_REQUESTED', { Type: 'CallUpdateRequest', Parameters: { Arguments: next } }, attributes),
    );
    expect(played.Actions.map((a) => a.Type)).toEqual(['PlayAudio', 'RecordAudio']);
    expect((played.Actions[0]!.Parameters as any).AudioSource.Key).toBe(`${PREFIX}2-user.wav`);
    expect((played.Actions[1]!.Parameters as any).RecordingDestination.Prefix).toBe(`${PREFIX}2-agent`);
    expect(played.TransactionAttributes).toMatchObject({ seq: '1', turn: '2', userAudioKey: `${PREFIX}2-user.wav` });
    expect(played.TransactionAttributes).not.toHaveProperty('action');
    const hung = await handleCallEvent(
      event(
        'CALL_UPDATE_REQUESTED',
        { Type: 'CallUpdateRequest', Parameters: { Arguments: { action: 'hangup' } } },
        attributes,
      ),
    );
    expect(hung.Actions).toEqual([{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }]);
    // The same update again (a redelivered step sends it once more): what is under way goes on.
    const again = await handleCallEvent(
      event(
        'CALL_UPDATE_REQUESTED',
        { Type: 'CallUpdateRequest', Parameters: { Arguments: next } },
        played.TransactionAttributes as Record<string, string>,
      ),
    );
    expect(again.Actions).toEqual([]);
    expect(again.TransactionAttributes).toEqual(played.TransactionAttributes);
  });

  it("a barged-in turn's answer: its head goes to the step at once, the rest is recorded until the step's update interrupts it", async () => {
    const attributes = { ...args, answered: '1', heard: '1' };
    const next = { action: 'play', seq: '1', turn: '2', userAudioKey: `${PREFIX}2-user.wav`, headMs: '1300' };
    const played = await handleCallEvent(
      event('CALL_UPDATE_REQUESTED', { Type: 'CallUpdateRequest', Parameters: { Arguments: next } }, attributes),
    );
    // The head: 1,300 ms, in Chime's whole seconds.
    expect(played.Actions[1]).toMatchObject({
      Type: 'RecordAudio',
      Parameters: {
        DurationInSeconds: 2,
        SilenceDurationInSeconds: 2,
        RecordingDestination: { Type: 'S3', BucketName: bucketName, Prefix: `${PREFIX}2-agent` },
      },
    });
    const headKey = `${PREFIX}2-agent_tx-1_1.wav`;
    const head = await handleCallEvent(
      event(
        'ACTION_SUCCESSFUL',
        { Type: 'RecordAudio', RecordingDestination: { Type: 'S3', BucketName: bucketName, Key: headKey } },
        played.TransactionAttributes,
      ),
    );
    expect(head.Actions).toEqual([
      {
        Type: 'RecordAudio',
        Parameters: {
          CallId: 'call-1',
          DurationInSeconds: 30,
          SilenceDurationInSeconds: 2,
          SilenceThreshold: 200,
          RecordingTerminators: ['#'],
          RecordingDestination: { Type: 'S3', BucketName: bucketName, Prefix: `${PREFIX}2-agent-rest` },
        },
      },
    ]);
    expect(head.TransactionAttributes).toMatchObject({ headKey, heard: '2' });
    // The rest, if the step waited for it (a head without speech), comes with the head's key; then the call pauses.
    const restKey = `${PREFIX}2-agent-rest_tx-1_2.wav`;
    const rest = await handleCallEvent(
      event(
        'ACTION_SUCCESSFUL',
        { Type: 'RecordAudio', RecordingDestination: { Type: 'S3', BucketName: bucketName, Key: restKey } },
        head.TransactionAttributes,
      ),
    );
    expect(rest.Actions.map((a) => a.Type)).toEqual(['Pause']);
    expect(queued().map((j) => [j.seq, j.voice])).toEqual([
      [1, { event: 'answer', turn: 2, agentAudioKey: headKey, head: true, transactionId: 'tx-1' }],
      [1, { event: 'answer', turn: 2, agentAudioKey: restKey, headAudioKey: headKey, transactionId: 'tx-1' }],
    ]);
    // The next turn's update (the barge-in itself) interrupts the rest: its answer is whole unless it asks for a head.
    const after = await handleCallEvent(
      event(
        'CALL_UPDATE_REQUESTED',
        {
          Type: 'CallUpdateRequest',
          Parameters: { Arguments: { action: 'play', seq: '2', turn: '3', userAudioKey: `${PREFIX}3-user.wav` } },
        },
        head.TransactionAttributes,
      ),
    );
    expect((after.Actions[1]!.Parameters as any).DurationInSeconds).toBe(30);
    expect(after.TransactionAttributes).not.toHaveProperty('headMs');
    expect(after.TransactionAttributes).not.toHaveProperty('headKey');
  });

  it('tells the session how the call ended: HANGUP (answered or not, with the recording) and ACTION_FAILED', async () => {
    await handleCallEvent(
      event(
        'HANGUP',
        { Type: 'Hangup', Parameters: { SipResponseCode: '480', CallId: 'call-1', ParticipantTag: 'LEG-A' } },
        args,
      ),
    );
    await handleCallEvent(
      event(
        'HANGUP',
        { Type: 'Hangup', Parameters: { SipResponseCode: '0', CallId: 'call-1', ParticipantTag: 'LEG-A' } },
        { ...args, answered: '1', recordingKey: `${PREFIX}call.wav` },
      ),
    );
    const failed = await handleCallEvent(
      event(
        'ACTION_FAILED',
        {
          Type: 'PlayAudio',
          Parameters: { CallId: 'call-1' },
          ErrorType: 'InvalidAudioSource',
          ErrorMessage: 'Audio Source parameter value is invalid.',
        },
        { ...args, answered: '1' },
      ),
    );
    expect(failed.Actions).toEqual([{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }]);
    expect(queued().map((j) => j.voice)).toEqual([
      { event: 'hangup', answered: false, byAgent: false, transactionId: 'tx-1' },
      { event: 'hangup', answered: true, byAgent: false, recordingKey: `${PREFIX}call.wav`, transactionId: 'tx-1' },
      {
        event: 'failed',
        error: 'PlayAudio failed (InvalidAudioSource: Audio Source parameter value is invalid.)',
        transactionId: 'tx-1',
      },
    ]);
  });

  it('hangs up, as it is answered, a call its session does not wait on: another delivery’s, an ended session’s, no session’s', async () => {
    const hangup = [{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }];
    const answered = (lookup: (sessionId: string) => Promise<SessionCall | undefined>) =>
      handleCallEvent(event('CALL_ANSWERED', undefined, args), lookup);
    // No call written yet: this call may be the one the step's winning delivery writes.
    expect((await answered(waitingOn(undefined))).Actions![0]!.Type).toBe('StartCallRecording');
    expect((await answered(waitingOn('tx-1'))).Actions![0]!.Type).toBe('StartCallRecording');
    // Another delivery's call won: this one (tx-1) is a stray.
    expect((await answered(waitingOn('tx-2'))).Actions).toEqual(hangup);
    // The session ended (cancelled, failed) while the call rang.
    expect((await answered(waitingOn('tx-1', true))).Actions).toEqual(hangup);
    expect((await answered(async () => undefined)).Actions).toEqual(hangup);
    // None of it is told to the session: its step heeds only its own call's events.
    expect(queued()).toEqual([]);
  });

  it('hangs up a call that is not a voice run’s, and ignores what needs no answer', async () => {
    const stray = await handleCallEvent(event('CALL_ANSWERED'));
    expect(stray.Actions).toEqual([{ Type: 'Hangup', Parameters: { SipResponseCode: '0' } }]);
    expect((await handleCallEvent(event('RINGING', undefined, args))).Actions).toEqual([]);
    expect(
      (await handleCallEvent(event('ACTION_INTERRUPTED', { Type: 'Pause' }, { ...args, answered: '1' }))).Actions,
    ).toEqual([]);
    expect(queued()).toEqual([]);
  });
});
