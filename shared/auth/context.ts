import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Access } from '../routes/route.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';

export const ROLES = ['ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];
export const PLANS = ['FREE', 'PRO', 'ENTERPRISE'] as const;
export type Plan = (typeof PLANS)[number];

/** What the authorizer puts into the request context, and every handler receives. */
export interface AuthContext {
  organizationId: string;
  userId: string;
  role: Role;
  plan: Plan;
  keyId: string;
}

/** Reads the authorizer context of a REST API proxy event (API Gateway passes values as strings). */
export function authFromEvent(event: Pick<APIGatewayProxyEvent, 'requestContext'>): AuthContext {
  const ctx = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  const organizationId = ctx.organizationId;
  const userId = ctx.userId;
  const role = ctx.role;
  const plan = ctx.plan;
  const keyId = ctx.keyId;
  if (
    typeof organizationId !== 'string' ||
    typeof userId !== 'string' ||
    !ROLES.includes(role as Role) ||
    !PLANS.includes(plan as Plan)
  ) {
    // Only reachable when a function is invoked without the authorizer in front of it.
    throw new UnauthorizedError();
  }
  return {
    organizationId,
    userId,
    role: role as Role,
    plan: plan as Plan,
    keyId: typeof keyId === 'string' ? keyId : '',
  };
}

/** The route-level access rule. */
export function assertAccess(auth: AuthContext, access: Access): void {
  if (access === 'member') return;
  if (auth.role === 'ADMIN') return;
  if (access === 'adminOrEnterprise' && auth.plan === 'ENTERPRISE') return;
  throw new ForbiddenError(
    access === 'admin'
      ? 'this route requires an ADMIN API key'
      : 'this route requires an ADMIN API key or an organization on the ENTERPRISE plan',
  );
}
