/**
 * Operator commands (`npm run admin -- <command>`), against the local runtime or, with TABLE_NAME
 * set and AWS credentials, a deployed table:
 *   create-org --name <name> [--plan FREE|PRO|ENTERPRISE] [--admin] [--credits <n>|unlimited]
 *   set-credits --org <id> --credits <n>|unlimited
 *   seed          (evaluator models and predefined metrics; idempotent, run after each deploy)
 */
import { parseArgs } from 'node:util';
import { loadCliEnv } from './cli-env.js';

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    name: { type: 'string' },
    plan: { type: 'string' },
    admin: { type: 'boolean', default: false },
    credits: { type: 'string' },
    org: { type: 'string' },
  },
  strict: true,
});

function credits(value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (value === 'unlimited') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`--credits must be a whole number ≥ 0 or "unlimited", got ${value}`);
  return n;
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const PLANS = ['FREE', 'PRO', 'ENTERPRISE'] as const;

loadCliEnv();
switch (command) {
  case 'create-org': {
    if (!values.name) fail('create-org needs --name <name>');
    const plan = (values.plan ?? 'FREE').toUpperCase();
    if (!PLANS.includes(plan as (typeof PLANS)[number])) fail(`--plan must be one of ${PLANS.join(', ')}`);
    const { createOrganizationWithKey } = await import('../../shared/domain/accounts/api-keys.js');
    const { organization, apiKey } = await createOrganizationWithKey({
      name: values.name,
      plan: plan as (typeof PLANS)[number],
      admin: values.admin ?? false,
      monthlyCredits: credits(values.credits, 1000),
    });
    console.log(`organization: ${organization.id} (${organization.plan}, ${organization.monthlyCredits ?? 'unlimited'} credits/month)`);
    console.log(`api key (${apiKey.role}, shown once): ${apiKey.key}`);
    break;
  }
  case 'set-credits': {
    if (!values.org) fail('set-credits needs --org <id>');
    if (values.credits === undefined) fail('set-credits needs --credits <n>|unlimited');
    const { updateOrganization } = await import('../../shared/db/organizations.js');
    const org = await updateOrganization(values.org, { monthlyCredits: credits(values.credits, null) });
    console.log(`organization ${org.id}: ${org.monthlyCredits ?? 'unlimited'} credits/month`);
    break;
  }
  case 'seed': {
    const { seedPlatform } = await import('../../shared/domain/metrics/predefined/seed.js');
    const out = await seedPlatform();
    console.log(`seeded ${out.models} new evaluator models and ${out.metrics} predefined metrics`);
    break;
  }
  default:
    fail('usage: npm run admin -- create-org --name <n> [--plan ENTERPRISE] [--admin] [--credits n] | set-credits --org <id> --credits <n> | seed');
}
