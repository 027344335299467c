import type { Plan } from '../../auth/context.js';
import type { Static } from '@sinclair/typebox';
import type { ApiKeyRecord as ApiKeyRecordSchema } from '../../schemas/organization.js';

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  /** Credits per UTC calendar month; null = unlimited (self-hosted). */
  monthlyCredits: number | null;
  createdAt: string;
}

/** As the API answers it: the type of its response schema. */
export type ApiKeyRecord = Static<typeof ApiKeyRecordSchema>;

/** The credit cycle is the UTC calendar month: `YYYY-MM`. */
export function cycleOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

export function cycleStart(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString();
}

export interface Spend {
  spentCredits: number;
  pendingCredits: number;
}

/** Credits still available this cycle; null when unlimited. */
export function availableCredits(org: Pick<Organization, 'monthlyCredits'>, spend: Spend): number | null {
  if (org.monthlyCredits === null) return null;
  return Math.max(0, org.monthlyCredits - spend.spentCredits - spend.pendingCredits);
}
