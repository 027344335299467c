/**
 * `npm run demo`: a client of the running API (start it first with `npm start`). Over HTTP only,
 * it creates a support-bot product, a version and a monitor on `non_empty_output` and `no_pii`,
 * plays production chat sessions (some answers empty, some giving out a phone number or an e-mail
 * address, some test messages the monitor's filter skips), closes them, then polls the monitor's
 * results until every scored session is in the daily buckets, and prints a summary.
 *
 * Where it connects: API_URL, else http://127.0.0.1:$PORT, else the running `npm start` (its
 * record in <DATA_DIR>/local-env.json), else http://127.0.0.1:3000. Its key: API_KEY, else
 * DEMO_API_KEY, else <DATA_DIR>/demo-api-key (DATA_DIR defaults to .data/). Knobs: DEMO_SESSIONS
 * (40), DEMO_POLL_SECONDS (2), DEMO_TIMEOUT_SECONDS (120). A failure is one line on stderr, exit 1.
 */
import { isAbsolute, relative } from 'node:path';
import { CliError, UsageError, runCli } from './cli.js';
import { apiKey, apiKeyFile, baseUrl } from './demo-target.js';

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${name} must be a positive number, got "${raw}"`);
  return value;
}

// Read in main(), so a bad setting is a one-line message like any other failure.
let BASE = '';
let KEY = '';
let SESSIONS = 40;
let POLL_MS = 2000;
let TIMEOUT_MS = 120_000;
const tty = process.stdout.isTTY === true;

async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new CliError(
      `No API answering at ${BASE} (${cause}): start it with \`npm start\` in another terminal, or set API_URL.`,
    );
  }
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new CliError(
      `${method} ${BASE}${path} answered ${res.status} with a body that is not JSON: is something else listening there?`,
    );
  }
  if (res.status === 401 || res.status === 403) {
    throw new CliError(
      `The API at ${BASE} refused the key (${res.status} ${parsed?.message ?? ''}): use the key \`npm start\` printed (API_KEY, DEMO_API_KEY or .data/demo-api-key).`,
    );
  }
  if (!res.ok) throw new CliError(`${method} ${path} answered ${res.status}: ${parsed?.message ?? text}`);
  return parsed as T;
}

const line = (text: string) => console.log(text);
/** A line that rewrites itself on a terminal; elsewhere (a log, a test) a new line each time. */
function status(text: string, final = false) {
  if (tty) process.stdout.write(`\r\x1b[2K${text}${final ? '\n' : ''}`);
  else line(text);
}

/** The chat the demo plays: a support bot for an online shop. */
const CHATS: { user: string; bot: (i: number) => string }[] = [
  { user: 'Where is my order #1042?', bot: () => 'It shipped yesterday and should arrive on Thursday.' },
  {
    user: 'I want a refund for my headphones.',
    bot: () => 'I have started the refund; you will see it within 5 business days.',
  },
  {
    user: 'Can I change my delivery address?',
    bot: (i) => (i % 3 === 0 ? '' : 'Yes, I updated the address on your order.'),
  },
  { user: 'How do I reach a human?', bot: () => 'Call our support line at +1 415-555-0134, weekdays 9 to 5.' },
  {
    user: 'Can you send me the invoice again?',
    bot: (i) =>
      i % 2 === 0 ? 'Sure, I sent it to jordan.lee@example.com.' : 'Sure, I sent it to the address on your account.',
  },
  { user: 'test message, please ignore', bot: () => 'ok' },
  { user: 'Do you ship to Canada?', bot: () => 'Yes, we ship to Canada; delivery takes 5 to 8 days.' },
  {
    user: 'My package arrived damaged.',
    bot: () => 'Sorry about that! Reply with a photo and I will send a replacement.',
  },
];
const EXCLUDED = 'test message';

interface Played {
  id: string;
  user: string;
  answer: string;
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

interface ScorePoint {
  scoredSessions: number;
  score: number | null;
  confidenceInterval: { lower: number; upper: number } | null;
  collectingData: boolean;
}
interface Results {
  metrics: { metricGroupId: string; name: string; headline: ScorePoint }[];
  worstMetric: (ScorePoint & { name: string }) | null;
  spend: { spentCredits: number; pendingCredits: number };
  sessions: { scored: { sessionId: string }[]; waiting: { sessionId: string }[] };
}

async function main() {
  BASE = baseUrl();
  KEY = apiKey();
  SESSIONS = Math.round(positive('DEMO_SESSIONS', 40));
  POLL_MS = positive('DEMO_POLL_SECONDS', 2) * 1000;
  TIMEOUT_MS = positive('DEMO_TIMEOUT_SECONDS', 120) * 1000;
  const started = Date.now();
  const org = await api<{ name: string; plan: string }>('GET', '/organization');
  line(`Connected to ${BASE} as "${org.name}" (${org.plan})`);

  const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const product = await api<{ id: string; name: string }>('POST', '/products', {
    name: `Demo support bot ${stamp}`,
    description: 'Answers order, delivery and billing questions for an online shop',
  });
  line(`✓ product created: ${product.name} (${product.id})`);
  const version = await api<{ id: string }>('POST', '/versions', { productId: product.id, name: 'v1' });
  line(`✓ version created: v1 (${version.id})`);
  const monitor = await api<{ id: string; name: string }>('POST', '/monitors', {
    productId: product.id,
    versionId: version.id,
    name: 'Production quality',
    metricGroupIds: ['mgrp_non_empty_output', 'mgrp_no_pii'],
    samplingPercentage: 100,
    excludeQuery: EXCLUDED,
    excludeTarget: 'INPUT',
  });
  line(
    `✓ monitor created: "${monitor.name}" (${monitor.id}) on non_empty_output and no_pii, every session sampled, inputs with "${EXCLUDED}" skipped`,
  );

  const plan = Array.from({ length: SESSIONS }, (_, i) => {
    const chat = CHATS[i % CHATS.length]!;
    return { i, user: chat.user, answer: chat.bot(Math.floor(i / CHATS.length)) };
  });
  const played: Played[] = [];
  await inBatches(plan, 8, async (p) => {
    const session = await api<{ id: string }>('POST', '/sessions', {
      versionId: version.id,
      customId: `demo-${p.i + 1}`,
    });
    await api('POST', '/inferenceResults/batch', {
      sessionId: session.id,
      messages: [
        { role: 'user', content: p.user },
        { role: 'assistant', content: p.answer },
      ],
    });
    played.push({ id: session.id, user: p.user, answer: p.answer });
    if (played.length % 10 === 0 || played.length === SESSIONS)
      status(`  ${played.length}/${SESSIONS} sessions sent`, played.length === SESSIONS);
  });
  let closed = 0;
  await inBatches(played, 8, async (s) => {
    await api('PATCH', `/sessions/${s.id}`, { status: 'COMPLETED' });
    closed++;
    if (closed % 10 === 0 || closed === SESSIONS)
      status(`  ${closed}/${SESSIONS} sessions closed (status COMPLETED)`, closed === SESSIONS);
  });
  const expected = played.filter((s) => !s.user.toLowerCase().includes(EXCLUDED)).length;
  line(
    `✓ ${SESSIONS} sessions played and closed; ${SESSIONS - expected} are test messages the monitor skips, ${expected} should be scored`,
  );

  // Two days, so a demo that runs across midnight (UTC) still finds all its sessions.
  const resultsPath = `/monitors/${monitor.id}/results?days=2`;
  const deadline = Date.now() + TIMEOUT_MS;
  let results = await api<Results>('GET', resultsPath);
  let last = '';
  const counts = (r: Results) => r.metrics.map((m) => `${m.name} ${m.headline.scoredSessions}`).join(', ');
  const settled = (r: Results) => r.metrics.every((m) => m.headline.scoredSessions >= expected);
  while (!settled(results)) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    if (left <= 0) {
      if (tty) process.stdout.write('\n');
      throw new CliError(
        `Timed out after ${TIMEOUT_MS / 1000} s with ${counts(results)} of ${expected} sessions in the results. ` +
          'The local runtime runs the scanner and aggregator every SCAN_INTERVAL_SECONDS (default 10; 0 turns them off): check the `npm start` terminal, or raise DEMO_TIMEOUT_SECONDS.',
      );
    }
    const now = `  waiting for the evaluator and aggregator: ${results.sessions.scored.length}/${expected} sessions evaluated, in the results: ${counts(results)} (${left} s left)`;
    if (tty || now.replace(/\(\d+ s left\)/, '') !== last) status(now);
    last = now.replace(/\(\d+ s left\)/, '');
    await new Promise((r) => setTimeout(r, POLL_MS));
    results = await api<Results>('GET', resultsPath);
  }
  status(`✓ all ${expected} sessions scored and aggregated after ${Math.round((Date.now() - started) / 1000)} s`, true);

  line(`\nResults of "${monitor.name}" (GET ${resultsPath}):`);
  const width = Math.max(...results.metrics.map((m) => m.name.length));
  for (const m of results.metrics) {
    const h = m.headline;
    const score = h.score === null ? 'no score' : `score ${h.score.toFixed(3)}`;
    const interval = h.confidenceInterval
      ? `95% interval ${h.confidenceInterval.lower.toFixed(3)}–${h.confidenceInterval.upper.toFixed(3)}`
      : 'collecting data (an interval from 30 scored sessions)';
    line(`  ${m.name.padEnd(width)}  ${score}  ${interval}  ${h.scoredSessions} scored sessions`);
  }
  const worst = results.worstMetric;
  line(
    `  worst metric: ${worst ? `${worst.name} (${worst.score === null ? 'no score' : worst.score.toFixed(3)})` : 'none yet'}`,
  );
  line(`  spend this cycle: ${results.spend.spentCredits} credits (deterministic metrics cost nothing)`);

  // A few reasons: the sessions whose answers gave something away or said nothing, and one clean one.
  const scored = played.filter((s) => !s.user.toLowerCase().includes(EXCLUDED));
  const pick = [
    scored.find((s) => s.answer.includes('+1 ')),
    scored.find((s) => s.answer.includes('@')),
    scored.find((s) => s.answer === ''),
    scored.find((s) => s.answer.startsWith('It shipped')),
  ].filter((s): s is Played => s !== undefined);
  if (pick.length) {
    const evaluations = await api<
      { sessionId: string; metricName: string; score: number | null; reason: string | null }[]
    >('GET', `/evaluations?sessionIds=${pick.map((s) => s.id).join(',')}&statuses=SUCCESS`);
    const clean = pick.find((s) => s.answer.startsWith('It shipped'))?.id;
    const interesting = [
      ...evaluations
        .filter((e) => e.score === 0)
        .sort((a, b) => pick.findIndex((s) => s.id === a.sessionId) - pick.findIndex((s) => s.id === b.sessionId)),
      ...evaluations.filter((e) => e.score !== 0 && e.sessionId === clean),
    ].filter((e) => e.reason);
    line('\nA few evaluation reasons:');
    for (const e of interesting) line(`  ${e.sessionId}  score ${e.score}  ${e.reason}`);
  }
  // The key file as the reader would type it: from here when it is below, else in full.
  const keyFile = relative(process.cwd(), apiKeyFile());
  const keyHint =
    process.env.API_KEY || process.env.DEMO_API_KEY
      ? '<your key>'
      : `$(cat ${keyFile.startsWith('..') || isAbsolute(keyFile) ? apiKeyFile() : keyFile})`;
  line(`\nThe full answer: curl -s -H "Authorization: Bearer ${keyHint}" "${BASE}${resultsPath}"`);
}

await runCli(async () => {
  try {
    await main();
  } catch (error) {
    if (tty) process.stdout.write('\n'); // leave a progress line that rewrites itself
    throw error;
  }
});
