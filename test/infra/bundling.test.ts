import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { AppFunction } from '../../infra/constructs/app-function.js';

describe('function bundling', () => {
  it('bundles a handler for real (ESM, build stamp defined) and the bundle loads and answers', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'evp-cdk-'));
    try {
      const app = new App({ outdir });
      const stack = new Stack(app, 'BundleTest');
      new AppFunction(stack, 'BuildInfo', {
        handler: 'build-info/get',
        role: new Role(stack, 'R', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }),
        logGroup: new LogGroup(stack, 'L'),
        environment: { TABLE_NAME: 't' },
      });
      app.synth();
      const asset = readdirSync(outdir).find((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')));
      expect(asset).toBeDefined();
      process.env.TABLE_NAME = 't';
      const mod = (await import(pathToFileURL(join(outdir, asset!, 'index.mjs')).href)) as { handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }> };
      const res = await mod.handler(
        { httpMethod: 'GET', path: '/build-info', headers: {}, requestContext: { authorizer: { organizationId: 'o', userId: 'u', role: 'ADMIN', plan: 'FREE' } } },
        { awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 },
      );
      expect(res.statusCode).toBe(200);
      const stamp = JSON.parse(res.body).api;
      expect(stamp.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(stamp.version).not.toBe('unbundled');
      expect(Date.parse(stamp.buildDate)).not.toBeNaN();
      // Validated by the precompiled validators: no schema compiler in the bundle.
      const refused = await mod.handler(
        { httpMethod: 'GET', path: '/build-info', headers: {}, queryStringParameters: { verbose: '1' }, requestContext: { authorizer: { organizationId: 'o', userId: 'u', role: 'ADMIN', plan: 'FREE' } } },
        { awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 },
      );
      expect(refused.statusCode).toBe(400);
      expect(JSON.parse(refused.body)).toEqual({ error: 'Bad Request', message: "unknown query parameter 'verbose'" });
      const code = readFileSync(join(outdir, asset!, 'index.mjs'), 'utf8');
      expect(code, 'ajv is not bundled').not.toContain('strictSchema');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
