/**
 * Environment variable names, shared by `infra/` (which sets them) and `functions/`
 * (which reads them). A function reads its configuration once, at module load.
 */
export const ENV = {
  tableName: 'TABLE_NAME',
  bucketName: 'BUCKET_NAME',
  queueUrl: 'EVALUATION_QUEUE_URL',
  runQueueUrl: 'RUN_QUEUE_URL',
  /** The webhook delivery queue. */
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  generationQueueUrl: 'GENERATION_QUEUE_URL',
  /** The voice figures queue: one call recording analysed per job. */
  voiceQueueUrl: 'VOICE_QUEUE_URL',
  /** How many run jobs the local runtime processes at once (the stand-in for Lambda concurrency). */
  runLocalConcurrency: 'RUN_LOCAL_CONCURRENCY',
  evaluatorFunction: 'EVALUATOR_FUNCTION_NAME',
  scannerFunction: 'SCANNER_FUNCTION_NAME',
  aggregatorFunction: 'AGGREGATOR_FUNCTION_NAME',
  runnerFunction: 'RUNNER_FUNCTION_NAME',
  generatorFunction: 'GENERATOR_FUNCTION_NAME',
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  s3Endpoint: 'S3_ENDPOINT',
  s3PublicEndpoint: 'S3_PUBLIC_ENDPOINT',
  lambdaEndpoint: 'LAMBDA_ENDPOINT',
  sqsEndpoint: 'SQS_ENDPOINT',
  llmBaseUrl: 'LLM_BASE_URL',
  llmApiKey: 'LLM_API_KEY',
  /** Accepted aliases of LLM_BASE_URL / LLM_API_KEY (the judge's names before the one LLM client). */
  judgeBaseUrl: 'JUDGE_BASE_URL',
  judgeApiKey: 'JUDGE_API_KEY',
  simulatorModel: 'SIMULATOR_MODEL',
  generatorModel: 'GENERATOR_MODEL',
  /** Voice runs: the model that speaks the simulated user's turns, its voice, and the one that transcribes the agent's. */
  ttsModel: 'TTS_MODEL',
  ttsVoice: 'TTS_VOICE',
  transcriptionModel: 'TRANSCRIPTION_MODEL',
  /** `true` lets agent calls reach loopback and private networks (`npm start` sets it; CDK never does). */
  agentAllowPrivateNetworks: 'AGENT_ALLOW_PRIVATE_NETWORKS',
  monitorIdleMinutes: 'MONITOR_IDLE_MINUTES',
  /** Minutes without progress after which the scanner re-delivers a run's steps (default 15). */
  stallMinutes: 'STALL_MINUTES',
  /** The deployment's Chime SDK phone number (E.164) that voice runs call from; unset: no telephony. */
  voiceFromNumber: 'VOICE_FROM_NUMBER',
  /** The SIP media application that places voice runs' calls (set by infra/constructs/voice.ts). */
  sipMediaApplicationId: 'SIP_MEDIA_APPLICATION_ID',
  /** The longest answer a voice run records, in seconds (the call-control function's RecordAudio limit). */
  voiceAnswerSeconds: 'VOICE_ANSWER_SECONDS',
  logLevel: 'LOG_LEVEL',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/**
 * Placeholders for the variables handler modules require at load, so a script can import every
 * handler for its schemas (`npm run openapi`, `npm run validators`); set ones are kept.
 */
export function placeholderEnvironment(value: string): void {
  for (const name of [
    ENV.tableName,
    ENV.bucketName,
    ENV.evaluatorFunction,
    ENV.scannerFunction,
    ENV.aggregatorFunction,
    ENV.runnerFunction,
    ENV.generatorFunction,
  ])
    process.env[name] ??= value;
}

/** Reads a required variable; a missing one fails at load with its name. */
export function requireEnv(name: EnvName): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`missing required environment variable ${name}`);
  }
  return value;
}

/** Reads an optional variable: undefined when unset or empty. */
export function optionalEnv(name: EnvName): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
