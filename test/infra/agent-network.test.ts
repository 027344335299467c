import { describe, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EvalPlatformStack } from '../../infra/stack.js';
import { ENV } from '../../shared/config/env.js';

describe('agent network guard in a deployment', () => {
  it('no function of any stack sets AGENT_ALLOW_PRIVATE_NETWORKS (agents on private networks are a local-only allowance)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new EvalPlatformStack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
    const stacks = app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
    let functions = 0;
    for (const stack of stacks) {
      const resources = Template.fromStack(stack).toJSON().Resources as Record<
        string,
        { Type: string; Properties: { Environment?: { Variables?: Record<string, unknown> } } }
      >;
      for (const [name, r] of Object.entries(resources)) {
        if (r.Type !== 'AWS::Lambda::Function') continue;
        functions++;
        expect(Object.keys(r.Properties.Environment?.Variables ?? {}), name).not.toContain(
          ENV.agentAllowPrivateNetworks,
        );
      }
    }
    expect(functions).toBeGreaterThan(10);
  });
});
