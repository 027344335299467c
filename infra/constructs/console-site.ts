import { cpSync } from 'node:fs';
import { DockerImage, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as EdgeFunction,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { consoleCsp, CONSOLE_DIR, CONSOLE_DIST, ensureConsoleBuilt } from '../console-build.js';

/** Where the console finds the API: the same domain, under this prefix. */
export const CONSOLE_API_PREFIX = '/api';

/** The CloudFront Function that maps `/api/<path>` to the stage's `/<path>` (the origin path adds the stage). */
export const STRIP_API_PREFIX = `function handler(event) {
  var request = event.request;
  request.uri = request.uri.replace(/^\\/api(?=\\/|$)/, '') || '/';
  return request;
}`;

export interface ConsoleSiteProps {
  api: RestApi;
  /** Server access logs of the console bucket go here (prefix `console-bucket/`). */
  accessLogsBucket: IBucket;
  /** The data bucket's origin: the audio it plays comes from there, and a CSV uploaded as a test goes there (presigned URLs). */
  mediaOrigins?: string[];
}

/**
 * The console on AWS: a private bucket read by CloudFront through origin access control, the
 * built app deployed into it with a generated `console-config.json` (API base `/api`), and the
 * API on the same distribution under `/api/*` (so the console needs no CORS).
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly deployment: BucketDeployment;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'console-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Security headers of the console',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleCsp(props.mediaOrigins), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    const stripPrefix = new EdgeFunction(this, 'StripApiPrefix', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Maps /api/<path> to /<path> of the API stage',
      code: FunctionCode.fromInline(STRIP_API_PREFIX),
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Evaluation platform console and API',
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
      },
      additionalBehaviors: {
        [`${CONSOLE_API_PREFIX}/*`]: {
          // The origin path is the stage (`/v1`); the function removes `/api`.
          origin: new RestApiOrigin(props.api),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Every answer depends on the caller's key: never cached; every header but Host (API
          // Gateway needs its own) and every query parameter reach the API.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          functionAssociations: [{ function: stripPrefix, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
      },
    });

    const deployRole = new Role(this, 'DeployRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Copies the console build into its bucket',
    });
    const deployLogs = new LogGroup(this, 'DeployLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    deployLogs.grantWrite(deployRole);
    this.deployment = new BucketDeployment(this, 'Deploy', {
      sources: [
        Source.asset(CONSOLE_DIR, {
          exclude: ['dist', '.dist-*', '.build-lock'],
          bundling: {
            // Built on the deploying machine (vite is a devDependency); the image is never pulled.
            image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
            local: {
              tryBundle(outputDir: string) {
                ensureConsoleBuilt();
                cpSync(CONSOLE_DIST, outputDir, { recursive: true });
                return true;
              },
            },
          },
        }),
        Source.jsonData('console-config.json', { apiBaseUrl: CONSOLE_API_PREFIX }),
      ],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/index.html', '/console-config.json'],
      memoryLimit: 256,
      // Its own role and log group (30 days) instead of CDK's default role with an AWS managed policy.
      role: deployRole,
      logGroup: deployLogs,
    });
  }
}
