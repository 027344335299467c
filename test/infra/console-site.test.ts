import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { EvalPlatformStack } from '../../infra/stack.js';
import { ConsoleSite, STRIP_API_PREFIX } from '../../infra/constructs/console-site.js';

const outdir = mkdtempSync(join(tmpdir(), 'evp-console-cdk-'));
// The whole stack, without bundling (the last test bundles the console for real).
const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new EvalPlatformStack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
const template = Template.fromStack(stack);
const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };
const resources = Object.entries(json.Resources);
const one = (type: string, where: (p: Record<string, any>) => boolean = () => true) => {
  const found = resources.filter(([, r]) => r.Type === type && where(r.Properties));
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const [bucketId] = one('AWS::S3::Bucket', (p) => p.LoggingConfiguration?.LogFilePrefix === 'console-bucket/');
const [, distribution] = one('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig;
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the console on AWS', () => {
  it("lets the console play audio from the data bucket's presigned URLs, and nothing else from outside", () => {
    const [, policy] = one('AWS::CloudFront::ResponseHeadersPolicy');
    const csp = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy;
    const text = JSON.stringify(csp.ContentSecurityPolicy);
    expect(text).toContain("media-src 'self' https://");
    // The data bucket's regional domain (the presigner's virtual-hosted URLs).
    expect(text).toContain('RegionalDomainName');
    expect(text).toContain("connect-src 'self'");
    expect(text).toContain("default-src 'self'");
  });

  it('keeps the console bucket private: public access blocked, readable only by the distribution through origin access control', () => {
    const bucket = json.Resources[bucketId]!.Properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.WebsiteConfiguration).toBeUndefined();
    const [, oac] = one('AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const s3Origin = config.Origins.find((o: any) => o.S3OriginConfig);
    expect(s3Origin.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(s3Origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Id'] });
    expect(s3Origin.S3OriginConfig.OriginAccessIdentity).toBe('');
    expect(config.DefaultCacheBehavior.TargetOriginId).toBe(s3Origin.Id);
    expect(config.DefaultRootObject).toBe('index.html');
    // the bucket policy: reads by CloudFront for this distribution only, and TLS only
    const [, policy] = one('AWS::S3::BucketPolicy', (p) => p.Bucket?.Ref === bucketId);
    const statements = policy.Properties.PolicyDocument.Statement as any[];
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Action: 's3:GetObject',
      Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
    });
    expect(statements.some((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false')).toBe(
      true,
    );
  });

  it('routes /api/* to the API stage, uncached, with every viewer header but Host, the /api prefix removed', () => {
    const behavior = config.CacheBehaviors.find((b: any) => b.PathPattern === '/api/*');
    expect(behavior).toBeDefined();
    const origin = config.Origins.find((o: any) => o.Id === behavior.TargetOriginId);
    const apiId = resources.find(([, r]) => r.Type === 'AWS::ApiGateway::RestApi')![0];
    expect(JSON.stringify(origin.DomainName)).toContain(`"Ref":"${apiId}"`);
    expect(JSON.stringify(origin.DomainName)).toContain('execute-api');
    // the origin path is `/<stage name>`, cut from the stage's URL
    const stageId = resources.find(([, r]) => r.Type === 'AWS::ApiGateway::Stage')![0];
    expect(origin.OriginPath['Fn::Join'][1][0]).toBe('/');
    expect(JSON.stringify(origin.OriginPath)).toContain(`"Ref":"${stageId}"`);
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
    expect(behavior.AllowedMethods).toEqual(
      expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']),
    );
    expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // Managed-CachingDisabled
    expect(behavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // Managed-AllViewerExceptHostHeader
    expect(behavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [expect.any(String), 'FunctionARN'] } },
    ]);
    const [, fn] = one('AWS::CloudFront::Function');
    expect(fn.Properties.FunctionCode).toBe(STRIP_API_PREFIX);
  });

  it('maps /api/<path> to /<path> in the CloudFront Function, and nothing else', () => {
    const handler = new Function(`${STRIP_API_PREFIX}; return handler;`)() as (e: { request: { uri: string } }) => {
      uri: string;
    };
    const uri = (u: string) => handler({ request: { uri: u } }).uri;
    expect(uri('/api/monitors/mon_1/results')).toBe('/monitors/mon_1/results');
    expect(uri('/api/')).toBe('/');
    expect(uri('/api')).toBe('/');
    expect(uri('/apis/x')).toBe('/apis/x');
  });

  it('deploys the console with a generated console-config.json whose API base is /api, and invalidates both entry files', () => {
    const [, deployment] = one('Custom::CDKBucketDeployment');
    expect(deployment.Properties.DestinationBucketName).toEqual({ Ref: bucketId });
    expect(deployment.Properties.DistributionPaths).toEqual(['/index.html', '/console-config.json']);
    const keys = (deployment.Properties.SourceObjectKeys as string[]).map((k) => k.replace(/\.zip$/, ''));
    expect(keys).toHaveLength(2);
    const staged = keys.map((hash) => join(outdir, `asset.${hash}`));
    const configDir = staged.find((d) => existsSync(join(d, 'console-config.json')));
    expect(configDir).toBeDefined();
    expect(JSON.parse(readFileSync(join(configDir!, 'console-config.json'), 'utf8'))).toEqual({ apiBaseUrl: '/api' });
  });

  it('bundles the built console (index.html and its assets) when the stack is bundled', () => {
    const out = mkdtempSync(join(tmpdir(), 'evp-console-bundle-'));
    try {
      const bundled = new App({ outdir: out });
      const small = new Stack(bundled, 'ConsoleBundle', { env: { account: '123456789012', region: 'eu-west-1' } });
      const api = new RestApi(small, 'Api', { deployOptions: { stageName: 'v1' } });
      api.root.addMethod('GET');
      new ConsoleSite(small, 'Console', { api, accessLogsBucket: new Bucket(small, 'Logs') });
      bundled.synth();
      const dirs = readdirSync(out).filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.html')));
      expect(dirs).toHaveLength(1);
      const html = readFileSync(join(out, dirs[0]!, 'index.html'), 'utf8');
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      expect(existsSync(join(out, dirs[0]!, script!))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
