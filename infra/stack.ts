import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '../shared/config/env.js';
import { GATEWAY_BODIES } from '../shared/http/errors.js';
import { DOCS_ASSETS, DOCS_PATHS } from '../shared/http/api-docs.js';
import { TABLE } from '../shared/db/table.js';
import { AppFunction } from './constructs/app-function.js';
import { FUNCTION_MEMORY_MB, memoryOfHandler } from './function-memory.js';
import { acknowledgeNagFindings } from './nag.js';
import { ConsoleSite } from './constructs/console-site.js';
import { Operations } from './constructs/operations.js';
import { Voice, type VoiceSettings } from './constructs/voice.js';
import { BINARY_MEDIA_TYPES, jobs, routeId, routes, type Capability, type Route } from '../shared/routes.js';
import { ApiRoutes, ROUTE_STACKS, routeGroup, routeStackOf, type RouteStackName } from './constructs/api-routes.js';

export const AUTHORIZER_CACHE_SECONDS = 300;
/** The API's one stage. */
export const STAGE_NAME = 'v1';
export const SCHEDULE_MINUTES = 5;
/** The runner's limit: one agent call (at most 120 s per attempt) plus the retries that fit; longer waits go back on the queue. */
export const RUNNER_TIMEOUT_MINUTES = 5;
/** The deliverer's limit: a batch of attempts of at most 10 s each, run in parallel, with room. */
export const DELIVERER_TIMEOUT_MINUTES = 1;
/** The generator's limit: one generator call (60 s per attempt, with its retries) and the writes of one step. */
export const GENERATOR_TIMEOUT_MINUTES = 5;
/** The voice job's limit: reading and decoding one recording of up to 2 hours (about a minute at 16 kHz). */
export const VOICE_TIMEOUT_MINUTES = 5;

const body = (b: { error: string; message: string }) => ({ 'application/json': JSON.stringify(b) });

/**
 * The OpenAI-compatible endpoint the judge, the simulated user and the generator call. The key is
 * never written into the template: `apiKeySecretName` names a Secrets Manager secret that
 * CloudFormation resolves into the functions' LLM_API_KEY at deploy time.
 */
export interface LlmSettings {
  baseUrl?: string;
  apiKeySecretName?: string;
  simulatorModel?: string;
  generatorModel?: string;
  /** Voice runs' speech: TTS_MODEL, TTS_VOICE, TRANSCRIPTION_MODEL. */
  ttsModel?: string;
  ttsVoice?: string;
  transcriptionModel?: string;
}

/**
 * How many invocations each queue's consumer runs at once (the event source's `maxConcurrency`,
 * 2 to 1,000), from the deploying shell: RUN_CONCURRENCY, EVALUATION_CONCURRENCY,
 * WEBHOOK_CONCURRENCY, GENERATION_CONCURRENCY, VOICE_CONCURRENCY (docs/deploying.md says what each costs).
 */
export interface QueueConcurrency {
  run?: number;
  evaluation?: number;
  webhook?: number;
  generation?: number;
  voice?: number;
}

export const DEFAULT_CONCURRENCY: Required<QueueConcurrency> = {
  run: 50,
  evaluation: 20,
  webhook: 10,
  generation: 5,
  voice: 5,
};

export interface EvalPlatformStackProps extends StackProps {
  llm?: LlmSettings;
  concurrency?: QueueConcurrency;
  /** Telephony for voice runs; without it, none is configured and no Voice stack is made. */
  voice?: VoiceSettings;
}

/** What each queue's event source takes at once and how long it waits to fill a batch. */
export function queueSettings(concurrency: QueueConcurrency = {}) {
  const within = (n: number | undefined, fallback: number) =>
    n !== undefined && Number.isInteger(n) ? Math.min(1000, Math.max(2, n)) : fallback;
  return {
    // One job is at most one agent call: one record per invocation, so `maxConcurrency` is the
    // number of agent calls at once across every run, and a slow agent holds no other job. No
    // batching window: a job waits for nothing but a free invocation.
    run: {
      batchSize: 1,
      maxBatchingWindow: Duration.seconds(0),
      maxConcurrency: within(concurrency.run, DEFAULT_CONCURRENCY.run),
    },
    // Up to 10 evaluations one after the other per invocation (each a judge call at most).
    evaluation: {
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(0),
      maxConcurrency: within(concurrency.evaluation, DEFAULT_CONCURRENCY.evaluation),
    },
    // Up to 10 delivery attempts in parallel per invocation (10 s each at most).
    webhook: {
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(0),
      maxConcurrency: within(concurrency.webhook, DEFAULT_CONCURRENCY.webhook),
    },
    // Up to 5 generator steps in parallel per invocation (one generator call each).
    generation: {
      batchSize: 5,
      maxBatchingWindow: Duration.seconds(0),
      maxConcurrency: within(concurrency.generation, DEFAULT_CONCURRENCY.generation),
    },
    // One recording per invocation: it is decoded whole, in the function's memory.
    voice: {
      batchSize: 1,
      maxBatchingWindow: Duration.seconds(0),
      maxConcurrency: within(concurrency.voice, DEFAULT_CONCURRENCY.voice),
    },
  };
}

/** The functions' LLM variables from the settings (only those given). */
export function llmEnvironment(llm: LlmSettings = {}): Record<string, string> {
  const env: Record<string, string> = {};
  if (llm.baseUrl) env[ENV.llmBaseUrl] = llm.baseUrl;
  if (llm.apiKeySecretName) env[ENV.llmApiKey] = SecretValue.secretsManager(llm.apiKeySecretName).unsafeUnwrap();
  if (llm.simulatorModel) env[ENV.simulatorModel] = llm.simulatorModel;
  if (llm.generatorModel) env[ENV.generatorModel] = llm.generatorModel;
  if (llm.ttsModel) env[ENV.ttsModel] = llm.ttsModel;
  if (llm.ttsVoice) env[ENV.ttsVoice] = llm.ttsVoice;
  if (llm.transcriptionModel) env[ENV.transcriptionModel] = llm.transcriptionModel;
  return env;
}

export class EvalPlatformStack extends Stack {
  readonly api: RestApi;
  readonly table: Table;
  /** The nested stack of alarms, their topic and the dashboard. */
  readonly operations: Operations;
  /** The nested stack of telephony (the SIP media application, the call-control function), when the deploy gives a number. */
  readonly voice?: Voice;
  /** The nested stacks of the API's routes (ROUTE_STACKS of infra/constructs/api-routes.ts). */
  readonly routeStacks: ApiRoutes[];

  constructor(scope: Construct, id: string, props?: EvalPlatformStackProps) {
    super(scope, id, props);

    // ---------- storage ----------
    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      timeToLiveAttribute: TABLE.timeToLiveAttribute,
    });
    for (const index of TABLE.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    this.table = table;

    // Server access logs of the data bucket (S3 writes them; kept 90 days).
    const accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });

    const bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogsBucket,
      serverAccessLogsPrefix: 'data-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
      cors: [
        {
          allowedMethods: [HttpMethods.PUT, HttpMethods.GET],
          allowedOrigins: ['*'],
          allowedHeaders: ['*'],
          maxAge: 3000,
        },
      ],
    });

    const dlq = new Queue(this, 'EvaluationDlq', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new Queue(this, 'EvaluationQueue', {
      visibilityTimeout: Duration.minutes(6),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: dlq, maxReceiveCount: 3 },
    });

    // The run queue: fan-out pages and session steps, one agent call per job.
    const runDlq = new Queue(this, 'RunDlq', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const runQueue = new Queue(this, 'RunQueue', {
      // Above the runner's timeout (Lambda requires it), so a job in flight is not delivered twice.
      visibilityTimeout: Duration.minutes(RUNNER_TIMEOUT_MINUTES * 2),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: runDlq, maxReceiveCount: 3 },
    });

    // Webhook deliveries: one attempt per job; waits over 15 minutes come back through the sweep.
    const webhookDlq = new Queue(this, 'WebhookDlq', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const webhookQueue = new Queue(this, 'WebhookQueue', {
      // Above the deliverer's timeout (Lambda requires it).
      visibilityTimeout: Duration.minutes(DELIVERER_TIMEOUT_MINUTES * 2),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: webhookDlq, maxReceiveCount: 3 },
    });

    // The generation queue: one generator step per job.
    const generationDlq = new Queue(this, 'GenerationDlq', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const generationQueue = new Queue(this, 'GenerationQueue', {
      // Above the generator's timeout, so a step in flight is not delivered twice.
      visibilityTimeout: Duration.minutes(GENERATOR_TIMEOUT_MINUTES * 2),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: generationDlq, maxReceiveCount: 3 },
    });

    // The voice queue: one call recording analysed per job.
    const voiceDlq = new Queue(this, 'VoiceDlq', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const voiceQueue = new Queue(this, 'VoiceQueue', {
      // Above the voice job's timeout, so a recording being analysed is not delivered twice.
      visibilityTimeout: Duration.minutes(VOICE_TIMEOUT_MINUTES * 2),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: voiceDlq, maxReceiveCount: 3 },
    });

    const apiLogs = new LogGroup(this, 'ApiFunctionLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const jobLogs = new LogGroup(this, 'JobFunctionLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // ---------- roles: shared per access level (keeps the stack far below 500 resources) ----------
    const roles = new Map<string, Role>();
    // No AWS managed policies: each role may write to its own log group only; tracing adds the
    // X-Ray write actions to the role itself (Tracing.ACTIVE).
    const newRole = (name: string, logGroup: LogGroup) => {
      const role = new Role(this, name, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      logGroup.grantWrite(role);
      return role;
    };

    const baseEnv: Record<string, string> = {
      [ENV.tableName]: table.tableName,
      [ENV.bucketName]: bucket.bucketName,
      [ENV.queueUrl]: queue.queueUrl,
      [ENV.runQueueUrl]: runQueue.queueUrl,
      [ENV.webhookQueueUrl]: webhookQueue.queueUrl,
      [ENV.generationQueueUrl]: generationQueue.queueUrl,
      [ENV.voiceQueueUrl]: voiceQueue.queueUrl,
      ...llmEnvironment(props?.llm),
    };

    // ---------- jobs ----------
    const jobsRole = newRole('JobsRole', jobLogs);
    table.grantReadWriteData(jobsRole);
    bucket.grantReadWrite(jobsRole);
    queue.grantSendMessages(jobsRole);
    queue.grantConsumeMessages(jobsRole);
    runQueue.grantSendMessages(jobsRole);
    runQueue.grantConsumeMessages(jobsRole);
    webhookQueue.grantSendMessages(jobsRole);
    webhookQueue.grantConsumeMessages(jobsRole);
    generationQueue.grantSendMessages(jobsRole);
    generationQueue.grantConsumeMessages(jobsRole);
    voiceQueue.grantSendMessages(jobsRole);
    voiceQueue.grantConsumeMessages(jobsRole);
    const jobFunctions = new Map<string, AppFunction>();
    const settings = queueSettings(props?.concurrency);
    for (const job of jobs) {
      const fn = new AppFunction(this, `Job${job.name[0]!.toUpperCase()}${job.name.slice(1)}`, {
        handler: job.handler,
        role: jobsRole,
        logGroup: jobLogs,
        environment: baseEnv,
        timeout: Duration.minutes(
          job.trigger === 'queue'
            ? 1
            : job.trigger === 'runQueue'
              ? RUNNER_TIMEOUT_MINUTES
              : job.trigger === 'generationQueue'
                ? GENERATOR_TIMEOUT_MINUTES
                : job.trigger === 'webhookQueue'
                  ? DELIVERER_TIMEOUT_MINUTES
                  : job.trigger === 'voiceQueue'
                    ? VOICE_TIMEOUT_MINUTES
                    : Math.min(4, job.everyMinutes ?? 4),
        ),
        memorySize: memoryOfHandler(job.handler),
        ...(job.runtimeModules ? { runtimeModules: job.runtimeModules } : {}),
      });
      jobFunctions.set(job.name, fn);
      if (job.trigger === 'schedule') {
        new Rule(this, `${fn.node.id}Schedule`, {
          schedule: Schedule.rate(Duration.minutes(job.everyMinutes ?? SCHEDULE_MINUTES)),
          targets: [new LambdaFunction(fn.fn, { retryAttempts: 2 })],
        });
      } else if (job.trigger === 'webhookQueue') {
        fn.fn.addEventSource(new SqsEventSource(webhookQueue, { ...settings.webhook, reportBatchItemFailures: true }));
      } else if (job.trigger === 'generationQueue') {
        fn.fn.addEventSource(
          new SqsEventSource(generationQueue, { ...settings.generation, reportBatchItemFailures: true }),
        );
      } else if (job.trigger === 'voiceQueue') {
        fn.fn.addEventSource(new SqsEventSource(voiceQueue, { ...settings.voice, reportBatchItemFailures: true }));
      } else if (job.trigger === 'runQueue') {
        fn.fn.addEventSource(new SqsEventSource(runQueue, { ...settings.run, reportBatchItemFailures: true }));
      } else {
        fn.fn.addEventSource(new SqsEventSource(queue, { ...settings.evaluation, reportBatchItemFailures: true }));
      }
    }
    // ---------- voice runs (docs/deploying.md): only when the deploy gives VOICE_FROM_NUMBER ----------
    // A nested stack (the call-control function, the SIP media application); here, only what the
    // functions that start and run phone sessions need: two variables and one policy statement.
    const voiceEnv: Record<string, string> = {};
    if (props?.voice) {
      const voice = new Voice(this, 'Voice', { ...props.voice, table, bucket, runQueue });
      this.voice = voice;
      // One output of the Voice stack, also read by the runs route (it answers 400 without telephony).
      const sipMediaApplicationId = voice.sipMediaApplication.attrSipMediaApplicationId;
      voiceEnv[ENV.voiceFromNumber] = props.voice.fromNumber;
      voiceEnv[ENV.sipMediaApplicationId] = sipMediaApplicationId;
      const runner = jobFunctions.get('runner')!;
      for (const [name, value] of Object.entries(voiceEnv)) runner.fn.addEnvironment(name, value);
      // The jobs share one role: the statement names this SIP media application only.
      jobsRole.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['chime:CreateSipMediaApplicationCall', 'chime:UpdateSipMediaApplicationCall'],
          resources: [this.formatArn({ service: 'chime', resource: 'sma', resourceName: sipMediaApplicationId })],
        }),
      );
    }

    const jobEnv: Record<string, string> = {
      [ENV.evaluatorFunction]: jobFunctions.get('evaluator')!.fn.functionName,
      [ENV.scannerFunction]: jobFunctions.get('scanner')!.fn.functionName,
      [ENV.aggregatorFunction]: jobFunctions.get('aggregator')!.fn.functionName,
      [ENV.runnerFunction]: jobFunctions.get('runner')!.fn.functionName,
      [ENV.generatorFunction]: jobFunctions.get('generator')!.fn.functionName,
    };

    const roleFor = (route: Route): IRole => {
      const caps = [...(route.capabilities ?? [])].sort();
      const key = [route.data, ...caps].join('-');
      let role = roles.get(key);
      if (!role) {
        role = newRole(`Api${key.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}Role`, apiLogs);
        if (route.data === 'read') table.grantReadData(role);
        else table.grantReadWriteData(role);
        for (const cap of caps as Capability[]) {
          if (cap === 'bucketRead') bucket.grantRead(role);
          if (cap === 'bucketWrite') bucket.grantReadWrite(role);
          if (cap === 'queueSend') queue.grantSendMessages(role);
          if (cap === 'runQueueSend') runQueue.grantSendMessages(role);
          if (cap === 'webhookQueueSend') webhookQueue.grantSendMessages(role);
          if (cap === 'generationQueueSend') generationQueue.grantSendMessages(role);
          if (cap === 'voiceQueueSend') voiceQueue.grantSendMessages(role);
          if (cap === 'invokeJobs') for (const f of jobFunctions.values()) f.fn.grantInvoke(role!);
          // Several partitions of an index in one request (PartiQL IN), e.g. a monitor's families.
          if (cap === 'tableSelect') table.grant(role, 'dynamodb:PartiQLSelect');
        }
        roles.set(key, role);
      }
      return role;
    };

    // ---------- API ----------
    const api = new RestApi(this, 'Api', {
      restApiName: 'eval-platform',
      description: 'Evaluation platform API',
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: 100,
        throttlingBurstLimit: 200,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
      // Stage logging needs the account's API Gateway CloudWatch role.
      cloudWatchRole: true,
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
    });
    this.api = api;

    const authorizerRole = newRole('AuthorizerRole', apiLogs);
    table.grantReadData(authorizerRole);
    const authorizerFn = new AppFunction(this, 'Authorizer', {
      handler: 'authorizer',
      role: authorizerRole,
      logGroup: apiLogs,
      environment: { [ENV.tableName]: table.tableName },
      timeout: Duration.seconds(10),
    });
    const authorizer = new TokenAuthorizer(this, 'KeyAuthorizer', {
      handler: authorizerFn.fn,
      identitySource: 'method.request.header.Authorization',
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_SECONDS),
    });

    api.addGatewayResponse('Unauthorized', {
      type: ResponseType.UNAUTHORIZED,
      statusCode: '401',
      templates: body(GATEWAY_BODIES.unauthorized),
    });
    api.addGatewayResponse('AccessDenied', {
      type: ResponseType.ACCESS_DENIED,
      statusCode: '403',
      templates: body(GATEWAY_BODIES.accessDenied),
    });
    api.addGatewayResponse('MissingToken', {
      type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
      statusCode: '404',
      templates: body(GATEWAY_BODIES.notFound),
    });
    api.addGatewayResponse('Throttled', {
      type: ResponseType.THROTTLED,
      statusCode: '429',
      templates: body(GATEWAY_BODIES.throttled),
    });
    api.addGatewayResponse('TooLarge', {
      type: ResponseType.REQUEST_TOO_LARGE,
      statusCode: '413',
      templates: { 'application/json': '{"error":"Payload Too Large","message":$context.error.messageString}' },
    });
    api.addGatewayResponse('Default4xx', {
      type: ResponseType.DEFAULT_4XX,
      templates: { 'application/json': '{"error":"Bad Request","message":$context.error.messageString}' },
    });
    api.addGatewayResponse('Default5xx', {
      type: ResponseType.DEFAULT_5XX,
      templates: body(GATEWAY_BODIES.default5xx),
    });

    // ---------- routes: functions and methods in nested stacks (docs/decisions.md, Routes in nested stacks) ----------
    // Each route goes to the stack ROUTE_STACKS gives its first path segment; an unassigned segment
    // fails here. The roles, the log group and the authorizer stay in this stack.
    const routesOf = new Map<RouteStackName, Route[]>();
    for (const route of routes) {
      const name = routeStackOf(route);
      routesOf.set(name, [...(routesOf.get(name) ?? []), route]);
    }
    // Every method using the authorizer is in a nested stack, where it is attached by id only: this
    // attaches the Authorizer construct to this API (CDK's own methods would).
    authorizer._attachToApi(api);
    const apiEnv = { ...baseEnv, ...jobEnv };
    this.routeStacks = (Object.keys(ROUTE_STACKS) as RouteStackName[]).map(
      (name) =>
        new ApiRoutes(this, name, {
          routes: routesOf.get(name) ?? [],
          api,
          stageName: STAGE_NAME,
          authorizerId: authorizer.authorizerId,
          roleFor,
          logGroup: apiLogs,
          // The route that starts runs knows whether telephony is configured (a PHONE run needs it).
          environmentFor: (route) => (route.handler === 'runs/create' ? { ...apiEnv, ...voiceEnv } : apiEnv),
        }),
    );
    // The deployment snapshots the API's methods, but sees only this stack's: it waits for the route
    // stacks, and gets a new logical id (a new snapshot) whenever a route, its handler or its stack
    // changes, as it does for a change of this stack's methods.
    const deployment = api.latestDeployment!;
    for (const routeStack of this.routeStacks) deployment.node.addDependency(routeStack);
    deployment.addToLogicalId({
      routes: this.routeStacks.flatMap((s) =>
        s.routes.map((r) => `${s.node.id} ${routeId(r)}: ${r.method} ${r.path} ${r.handler}`),
      ),
      methods: { authorizationType: AuthorizationType.CUSTOM, integration: 'AWS_PROXY', allowTestInvoke: false },
    });

    // The API reference: no authorizer; one small function serving files shipped in its asset.
    const docsFn = new AppFunction(this, 'ApiDocs', {
      handler: 'docs/serve',
      role: newRole('ApiDocsRole', apiLogs),
      logGroup: apiLogs,
      environment: {},
      memorySize: FUNCTION_MEMORY_MB.apiDocs,
      files: ['docs/openapi.json', ...Object.keys(DOCS_ASSETS).map((a) => `node_modules/swagger-ui-dist/${a}`)],
    });
    const docsIntegration = new LambdaIntegration(docsFn.fn, { allowTestInvoke: false });
    // Path resources here only under segments no route stack owns (a path part is made once).
    for (const path of Object.values(DOCS_PATHS)) {
      const owner = (Object.keys(ROUTE_STACKS) as RouteStackName[]).find((name) =>
        (ROUTE_STACKS[name] as readonly string[]).includes(routeGroup({ path })),
      );
      if (owner) throw new Error(`${path} is under a segment of ${owner}'s routes`);
    }
    const docsMethods = Object.values(DOCS_PATHS).map((path) =>
      api.root.resourceForPath(path).addMethod('GET', docsIntegration, { authorizationType: AuthorizationType.NONE }),
    );

    // ---------- console: S3 behind CloudFront, the API at /api/* ----------
    const site = new ConsoleSite(this, 'Console', {
      api,
      accessLogsBucket,
      mediaOrigins: [`https://${bucket.bucketRegionalDomainName}`],
    });

    // ---------- operations (docs/operations.md): alarms to an SNS topic, one dashboard ----------
    // A nested stack with 500 resources of its own: two alarms per function do not fit in this one.
    const operations = new Operations(this, 'Operations', {
      queues: [
        { name: 'Evaluation', queue, dlq },
        { name: 'Run', queue: runQueue, dlq: runDlq },
        { name: 'Webhook', queue: webhookQueue, dlq: webhookDlq },
        { name: 'Generation', queue: generationQueue, dlq: generationDlq },
        { name: 'Voice', queue: voiceQueue, dlq: voiceDlq },
      ],
      // The jobs, however the stack made them (the Voice stack's call control too: findAll reaches
      // into nested stacks): one Errors alarm each. Routes are watched through the API's alarms.
      functions: this.node
        .findAll()
        .filter((c): c is AppFunction => c instanceof AppFunction && c.handler.startsWith('jobs/')),
      api,
      table,
    });
    this.operations = operations;

    acknowledgeNagFindings(this, {
      api,
      accessLogsBucket,
      docsMethods,
      site,
      routeStacks: this.routeStacks,
      ...(this.voice ? { voice: this.voice } : {}),
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
    new CfnOutput(this, 'ConsoleUrl', { value: `https://${site.distribution.distributionDomainName}/` });
    // Subscribe an address to it (docs/deploying.md). An output of the nested stack, read here.
    new CfnOutput(this, 'AlarmTopicArn', { value: operations.topic.topicArn });
  }
}
