import type { AuthContext } from '../../auth/context.js';
import { getSpend, requireOrganization, updateOrganization } from '../../db/organizations.js';
import type { OrganizationUpdate } from '../../schemas/organization.js';
import { availableCredits, cycleOf, cycleStart, type Organization } from './organization.js';
import type { Static } from '@sinclair/typebox';
import type { OrganizationRecord } from '../../schemas/organization.js';

/** As the API answers it: the type of its response schema. */
export type OrganizationView = Static<typeof OrganizationRecord>;

async function viewOf(org: Organization, now = new Date()): Promise<OrganizationView> {
  const spend = await getSpend(org.id, cycleOf(now));
  return {
    ...org,
    cycleStart: org.monthlyCredits === null ? null : cycleStart(now),
    ...spend,
    availableCredits: availableCredits(org, spend),
  };
}

export async function getOrganizationView(auth: AuthContext): Promise<OrganizationView> {
  return viewOf(await requireOrganization(auth.organizationId));
}

/** ADMIN only (enforced by the route's access level). */
export async function adminUpdateOrganization(id: string, body: OrganizationUpdate): Promise<OrganizationView> {
  return viewOf(await updateOrganization(id, body));
}
