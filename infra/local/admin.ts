/**
 * Operator commands (`npm run admin -- <command>`), against the local runtime or, with TABLE_NAME
 * set and AWS credentials, a deployed table:
 *   create-org --name <name> [--plan FREE|PRO|ENTERPRISE] [--admin] [--credits <n>|unlimited]
 *   set-credits --org <id> --credits <n>|unlimited
 *   seed          (evaluator models and predefined metrics; idempotent, run after each deploy)
 *   redrive <queue>   (evaluation|run|webhook|generation|voice: the local queue's dead letters back onto it)
 * `--help` prints the usage. A mistake prints one line on stderr: exit 2 for a wrong call, 1 for a
 * failed command.
 */
import { parseArgs } from 'node:util';
import { loadCliEnv } from './cli-env.js';
import { answerHelp, runCli, UsageError } from './cli.js';

const USAGE =
  'usage: npm run admin -- create-org --name <n> [--plan FREE|PRO|ENTERPRISE] [--admin] [--credits <n>|unlimited] | set-credits --org <id> --credits <n>|unlimited | seed | redrive evaluation|run|webhook|generation|voice';
const PLANS = ['FREE', 'PRO', 'ENTERPRISE'] as const;
const COMMANDS = ['create-org', 'set-credits', 'seed', 'redrive'];

function credits(value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (value === 'unlimited') return null;
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`--credits must be a whole number ≥ 0 or "unlimited", got ${value}`);
  return n;
}

await runCli(async () => {
  answerHelp(process.argv.slice(2), USAGE);
  const [command, ...rest] = process.argv.slice(2);
  if (!command || !COMMANDS.includes(command))
    throw new UsageError(command ? `unknown command ${command}; ${USAGE}` : USAGE);
  let values: { name?: string; plan?: string; admin?: boolean; credits?: string; org?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        plan: { type: 'string' },
        admin: { type: 'boolean', default: false },
        credits: { type: 'string' },
        org: { type: 'string' },
      },
      strict: true,
      // Only `redrive` takes one: its queue.
      allowPositionals: command === 'redrive',
    }));
  } catch (error) {
    // parseArgs says what is wrong (unknown option, missing value, stray argument) in one sentence.
    throw new UsageError(`${(error as Error).message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '')}; ${USAGE}`);
  }

  switch (command) {
    case 'create-org': {
      if (!values.name) throw new UsageError('create-org needs --name <name>');
      const plan = (values.plan ?? 'FREE').toUpperCase();
      if (!PLANS.includes(plan as (typeof PLANS)[number]))
        throw new UsageError(`--plan must be one of ${PLANS.join(', ')}, got ${values.plan}`);
      const monthlyCredits = credits(values.credits, 1000);
      await loadCliEnv();
      const { createOrganizationWithKey } = await import('../../shared/domain/accounts/api-keys.js');
      const { organization, apiKey } = await createOrganizationWithKey({
        name: values.name,
        plan: plan as (typeof PLANS)[number],
        admin: values.admin ?? false,
        monthlyCredits,
      });
      console.log(
        `organization: ${organization.id} (${organization.plan}, ${organization.monthlyCredits ?? 'unlimited'} credits/month)`,
      );
      console.log(`api key (${apiKey.role}, shown once): ${apiKey.key}`);
      break;
    }
    case 'set-credits': {
      if (!values.org) throw new UsageError('set-credits needs --org <id>');
      if (values.credits === undefined) throw new UsageError('set-credits needs --credits <n>|unlimited');
      const monthlyCredits = credits(values.credits, null);
      await loadCliEnv();
      const { updateOrganization } = await import('../../shared/db/organizations.js');
      const org = await updateOrganization(values.org, { monthlyCredits });
      console.log(`organization ${org.id}: ${org.monthlyCredits ?? 'unlimited'} credits/month`);
      break;
    }
    case 'seed': {
      await loadCliEnv();
      const { seedPlatform } = await import('../../shared/domain/metrics/predefined/seed.js');
      const out = await seedPlatform();
      console.log(`seeded ${out.models} new evaluator models and ${out.metrics} predefined metrics`);
      break;
    }
    case 'redrive': {
      const flag = rest.find((a) => a.startsWith('-'));
      if (flag) throw new UsageError(`redrive takes no option (${flag}); usage: npm run admin -- redrive <queue>`);
      const { redrive } = await import('./redrive.js');
      console.log(await redrive(positionals));
      break;
    }
  }
  // The SDK's keep-alive sockets would hold the process open for a while.
  process.exit(0);
});
