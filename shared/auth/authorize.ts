import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { hashKeyBody, keyFromAuthorizationHeader, parseApiKey } from './api-key.js';
import { findKeyByHash, getOrganization } from '../db/organizations.js';
import type { AuthContext } from './context.js';

/** Thrown for every kind of bad key; API Gateway answers `Unauthorized` with 401. */
export class AuthorizerUnauthorized extends Error {
  constructor(readonly reason: string) {
    super('Unauthorized');
  }
}

/**
 * `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<method>/<path>` → `…/<api>/<stage>/*\/*`.
 * The authorizer's answer is cached per key for every route, so the policy must cover them all.
 */
export function wildcardResource(methodArn: string): string {
  const [prefix, apiAndStage] = splitArn(methodArn);
  const [api, stage] = apiAndStage.split('/');
  return `${prefix}:${api}/${stage}/*/*`;
}

function splitArn(arn: string): [string, string] {
  const idx = arn.lastIndexOf(':');
  return [arn.slice(0, idx), arn.slice(idx + 1)];
}

/** Resolves a bearer header to the caller, or throws AuthorizerUnauthorized. */
export async function resolveCaller(authorizationHeader: string | undefined): Promise<AuthContext> {
  const key = keyFromAuthorizationHeader(authorizationHeader);
  if (!key) throw new AuthorizerUnauthorized('missing bearer credential');
  const parsed = parseApiKey(key);
  if (!parsed.ok) throw new AuthorizerUnauthorized(`malformed key: ${parsed.reason}`);
  const record = await findKeyByHash(hashKeyBody(parsed.body));
  if (!record) throw new AuthorizerUnauthorized('unknown key');
  if (record.revokedAt) throw new AuthorizerUnauthorized('revoked key');
  const org = await getOrganization(record.organizationId);
  if (!org) throw new AuthorizerUnauthorized('organization not found');
  return { organizationId: org.id, userId: record.userId, role: record.role, plan: org.plan, keyId: record.id };
}

export function allowPolicy(caller: AuthContext, methodArn: string): APIGatewayAuthorizerResult {
  return {
    principalId: caller.userId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wildcardResource(methodArn) }],
    },
    context: { ...caller },
  };
}
