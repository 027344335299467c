import { describe, expect, it } from 'vitest';
import { allowPolicy, wildcardResource } from '../../shared/auth/authorize.js';
import { assertAccess } from '../../shared/auth/context.js';

const caller = {
  organizationId: 'org_1',
  userId: 'usr_1',
  role: 'MEMBER' as const,
  plan: 'PRO' as const,
  keyId: 'key_1',
};

describe('authorizer policy', () => {
  it('allows every route of the stage, so one cached answer serves them all', () => {
    expect(wildcardResource('arn:aws:execute-api:eu-west-1:123456789012:abcdef/v1/GET/phoneConnections/phc_1')).toBe(
      'arn:aws:execute-api:eu-west-1:123456789012:abcdef/v1/*/*',
    );
    const policy = allowPolicy(caller, 'arn:aws:execute-api:eu-west-1:123456789012:abcdef/v1/POST/apiKeys');
    expect(policy.principalId).toBe('usr_1');
    expect(policy.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow', Action: 'execute-api:Invoke' });
    expect(policy.context).toEqual(caller);
  });

  it('applies route access levels: build info for ADMIN or ENTERPRISE only', () => {
    expect(() => assertAccess(caller, 'member')).not.toThrow();
    expect(() => assertAccess(caller, 'adminOrEnterprise')).toThrow(
      /ADMIN API key or an organization on the ENTERPRISE plan/,
    );
    expect(() => assertAccess({ ...caller, plan: 'ENTERPRISE' }, 'adminOrEnterprise')).not.toThrow();
    expect(() => assertAccess({ ...caller, role: 'ADMIN', plan: 'FREE' }, 'adminOrEnterprise')).not.toThrow();
    expect(() => assertAccess({ ...caller, plan: 'ENTERPRISE' }, 'admin')).toThrow(/ADMIN/);
  });
});
