import { Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { CfnSipMediaApplication } from 'aws-cdk-lib/aws-chime';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '../../shared/config/env.js';
import { E164 } from '../../shared/telephony/telephony.js';
import { MAX_ANSWER_SECONDS } from '../../shared/voice/line.js';
import { AppFunction } from './app-function.js';
import { FUNCTION_MEMORY_MB } from '../function-memory.js';

/** The principal of the Chime SDK PSTN audio service: it invokes the SIP media application's Lambda and reads and writes its audio. */
export const CHIME_VOICE_PRINCIPAL = 'voiceconnector.chime.amazonaws.com';
/** Where voice runs keep their audio: `orgs/<org>/voice/<session>/…` (utterances, answers, call recordings). */
export const VOICE_KEY_PATTERN = 'orgs/*/voice/*';
/** The longest answer a voice run records by default (RecordAudio's DurationInSeconds). */
export const DEFAULT_VOICE_ANSWER_SECONDS = 30;
/**
 * The call-control function's limit: Chime waits 5 s for an answer before it invokes again (and
 * hangs up after 20 s), so an invocation still running after 5 s is already being retried.
 * https://docs.aws.amazon.com/chime-sdk/latest/dg/timeouts.html
 */
export const CALL_CONTROL_TIMEOUT_SECONDS = 5;

/** The deploy-time telephony settings (docs/deploying.md). */
export interface VoiceSettings {
  /** The deployment's Chime SDK phone number, E.164 (`VOICE_FROM_NUMBER` at `cdk deploy`). */
  fromNumber: string;
  /** The longest answer recorded, in seconds (`VOICE_ANSWER_SECONDS`, default 30). */
  answerSeconds?: number;
}

export interface VoiceProps extends VoiceSettings {
  table: ITable;
  /** The data bucket: voice audio lives under VOICE_KEY_PATTERN. */
  bucket: Bucket;
  /** The run queue: the call-control function queues voice-turn jobs on it. */
  runQueue: IQueue;
}

/**
 * The telephony settings of a deploy, from the deploying shell (infra/app.ts): none without
 * `VOICE_FROM_NUMBER` (unset or empty), else the number and `VOICE_ANSWER_SECONDS` if given.
 */
export function voiceSettingsFromEnv(env: NodeJS.ProcessEnv): VoiceSettings | undefined {
  const fromNumber = env[ENV.voiceFromNumber];
  if (!fromNumber) return undefined;
  const answerSeconds = env[ENV.voiceAnswerSeconds];
  if (!answerSeconds) return { fromNumber };
  if (!/^\d+$/.test(answerSeconds)) {
    throw new Error(`VOICE_ANSWER_SECONDS=${JSON.stringify(answerSeconds)} is not a whole number of seconds`);
  }
  return { fromNumber, answerSeconds: Number(answerSeconds) };
}

/**
 * Fails the synth with a clear message for a number that is not E.164, or an answer limit that is
 * not a whole number of seconds above 0.
 */
export function checkVoiceSettings(settings: VoiceSettings): void {
  if (!E164.test(settings.fromNumber)) {
    throw new Error(
      `VOICE_FROM_NUMBER=${JSON.stringify(settings.fromNumber)} is not an E.164 phone number: ` +
        'a +, the country code and the number, digits only, at most 15 (e.g. +14155550100)',
    );
  }
  const seconds = settings.answerSeconds;
  if (seconds !== undefined && !(Number.isInteger(seconds) && seconds > 0 && seconds <= MAX_ANSWER_SECONDS)) {
    throw new Error(
      `VOICE_ANSWER_SECONDS=${String(seconds)} is not a whole number of seconds from 1 to ${MAX_ANSWER_SECONDS}`,
    );
  }
}

/**
 * Telephony of voice runs (Amazon Chime SDK PSTN audio), in a nested stack made only when a deploy
 * gives a number (the service's stack was close to CloudFormation's 500 resources). It holds the call-control function (its role and log
 * group), the SIP media application whose endpoint that function is, and Chime's permission to
 * invoke it. In the data bucket's policy it lets Chime's principal read the utterances it plays
 * and write the answers and call recordings, under VOICE_KEY_PATTERN only. The parent gives the
 * run job `SIP_MEDIA_APPLICATION_ID` and the right to place and update calls (infra/stack.ts).
 */
export class Voice extends NestedStack {
  readonly callControl: AppFunction;
  readonly callControlRole: Role;
  readonly sipMediaApplication: CfnSipMediaApplication;

  constructor(scope: Construct, id: string, props: VoiceProps) {
    checkVoiceSettings(props);
    const parentName = Stack.of(scope).stackName;
    super(scope, id, {
      description: `${parentName} voice runs: the SIP media application and its call-control function`,
    });

    const logGroup = new LogGroup(this, 'CallControlLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role: the table, the run queue, and reading voice audio only.
    this.callControlRole = new Role(this, 'CallControlRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(this.callControlRole);
    props.table.grantReadWriteData(this.callControlRole);
    props.runQueue.grantSendMessages(this.callControlRole);
    props.bucket.grantRead(this.callControlRole, VOICE_KEY_PATTERN);

    this.callControl = new AppFunction(this, 'CallControl', {
      handler: 'jobs/call-control',
      role: this.callControlRole,
      logGroup,
      environment: {
        [ENV.tableName]: props.table.tableName,
        [ENV.bucketName]: props.bucket.bucketName,
        [ENV.runQueueUrl]: props.runQueue.queueUrl,
        [ENV.voiceAnswerSeconds]: String(props.answerSeconds ?? DEFAULT_VOICE_ANSWER_SECONDS),
      },
      timeout: Duration.seconds(CALL_CONTROL_TIMEOUT_SECONDS),
      // More memory is more CPU: a cold start must fit in Chime's 5 seconds.
      memorySize: FUNCTION_MEMORY_MB.callControl,
    });

    // Chime invokes the function for this account's SIP media applications. No SourceArn: the
    // ARN Chime presents is not documented for Lambda (the guide shows arn:aws:chime:…:sma/<id>
    // for S3 and arn:aws:voiceconnector:…:sma/<id> for Lex), and a wrong one fails every call.
    const invoke = new CfnPermission(this, 'ChimeInvokesCallControl', {
      action: 'lambda:InvokeFunction',
      functionName: this.callControl.fn.functionArn,
      principal: CHIME_VOICE_PRINCIPAL,
      sourceAccount: this.account,
    });

    this.sipMediaApplication = new CfnSipMediaApplication(this, 'SipMediaApplication', {
      // [a-zA-Z0-9 _.-], at most 256: a stack name fits.
      name: `${parentName}-voice`,
      awsRegion: this.region,
      endpoints: [{ lambdaArn: this.callControl.fn.functionArn }],
    });
    // Chime may check its permission when the application is created.
    this.sipMediaApplication.node.addDependency(invoke);

    // The bucket's policy (in the parent): Chime plays the utterances (PlayAudio reads them) and
    // writes the answers (RecordAudio) and the call recording (StartCallRecording), for this
    // account only (the condition the Chime SDK guide gives against the confused deputy).
    // https://docs.aws.amazon.com/chime-sdk/latest/dg/play-audio.html,
    // https://docs.aws.amazon.com/chime-sdk/latest/dg/record-audio.html,
    // https://docs.aws.amazon.com/chime-sdk/latest/dg/start-call-recording.html
    const thisAccount = { StringEquals: { 'aws:SourceAccount': Stack.of(props.bucket).account } };
    const voiceObjects = props.bucket.arnForObjects(VOICE_KEY_PATTERN);
    props.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'ChimeReadsVoiceAudio',
        principals: [new ServicePrincipal(CHIME_VOICE_PRINCIPAL)],
        actions: ['s3:GetObject'],
        resources: [voiceObjects],
        conditions: thisAccount,
      }),
    );
    props.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'ChimeWritesVoiceAudio',
        principals: [new ServicePrincipal(CHIME_VOICE_PRINCIPAL)],
        actions: ['s3:PutObject', 's3:PutObjectAcl'],
        resources: [voiceObjects],
        conditions: thisAccount,
      }),
    );
  }
}
