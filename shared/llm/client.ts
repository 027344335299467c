import { ENV, optionalEnv } from '../config/env.js';
import type { TransactItem } from '../db/catalog.js';
import { releaseOrgCredits, reserveOrgCredits, settleOrgCredits, settleOrgCreditsWith } from '../db/credits.js';
import { getModel } from '../db/models.js';
import { getOrganization } from '../db/organizations.js';
import { cycleOf } from '../domain/accounts/organization.js';
import { clock } from '../domain/common/clock.js';
import { logger } from '../observability/logger.js';
import { countMetric, METRIC, recordLatency } from '../observability/metrics.js';
import { answerContent, parseAnswer, quote, retryAfterMs, retryDelayMs, type LlmPurpose } from './answer.js';

/**
 * The one client for LLM calls: judge, simulator and generator all send an
 * OpenAI-compatible Chat Completions request with a strict JSON-schema `response_format`, and get
 * back a value that matched that schema, or an error sentence. Credits are reserved on the
 * organization before the call and settled only for a valid answer.
 */

export type { LlmPurpose } from './answer.js';

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmCallInput<T> {
  purpose: LlmPurpose;
  organizationId: string;
  /** The provider's model id, sent as `model`. */
  model: string;
  /** The evaluator-model record whose `creditsPerEvaluation` is charged; default `model`. */
  creditsModelName?: string;
  messages: LlmMessage[];
  /** `response_format.json_schema.name`; also names the schema in validation errors. */
  schemaName: string;
  /** JSON Schema of the answer (strict: every property required, no additional ones). Compiled once per object: reuse the object when you can. */
  schema: object;
  /**
   * false when the caller keeps its own ledger for this call (the evaluator reserves against the
   * organization and a monitor's cap in one transaction with the evaluation): nothing is charged here.
   */
  charge?: boolean;
  /** A rule the schema cannot say; a sentence means the answer is invalid (retried once, like a schema mismatch). */
  refine?: (value: T) => string | undefined;
  /** Sampling temperature; default 0. */
  temperature?: number;
  /**
   * Time left to the caller (a Lambda's remaining time), in ms. No attempt or retry wait runs past
   * it (less a margin to write the outcome), so a job never dies holding a credit reservation.
   */
  remainingMs?: number;
  /** The organization's monthly credits when the caller has read them (null: unlimited), so they are not read again. */
  monthlyCredits?: number | null;
  /**
   * Items to write in the transaction that settles the credits of a valid answer (the caller's
   * record of it), so the settlement and that record are one request; `recorded` says whether
   * their conditions held.
   */
  settleWith?: (value: T) => TransactItem[];
}

export type LlmCallResult<T> =
  | { ok: true; value: T; creditsUsed: number; recorded?: boolean }
  | { ok: false; error: string; creditsUsed: 0 };

export interface LlmConfig {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Per HTTP attempt, the body included. */
  timeoutMs: number;
  /** HTTP attempts per answer (429, 5xx, timeouts and network errors are retried). */
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

let config: LlmConfig = {
  baseUrl: optionalEnv(ENV.llmBaseUrl) ?? optionalEnv(ENV.judgeBaseUrl),
  apiKey: optionalEnv(ENV.llmApiKey) ?? optionalEnv(ENV.judgeApiKey),
  timeoutMs: 60_000,
  maxAttempts: 3,
  backoffMs: 1_000,
  maxBackoffMs: 30_000,
};

export function llmConfig(): LlmConfig {
  return config;
}

/** For tests and the local runtime: point the client somewhere else (baseUrl undefined = not configured). */
export function setLlmConfig(patch: Partial<LlmConfig>): void {
  config = { ...config, ...patch };
}

/** How many answers the model gets: the first, and one more after an invalid one. */
const ANSWER_ROUNDS = 2;
/** Kept free of `remainingMs` for settling or releasing credits and recording the step. */
const DEADLINE_MARGIN_MS = 2_000;

export async function callLlm<T>(input: LlmCallInput<T>): Promise<LlmCallResult<T>> {
  if (!config.baseUrl) return { ok: false, error: `no ${input.purpose} model is configured`, creditsUsed: 0 };
  return chargedCall(
    {
      organizationId: input.organizationId,
      creditsModelName: input.creditsModelName ?? input.model,
      ...(input.charge === undefined ? {} : { charge: input.charge }),
      ...(input.monthlyCredits === undefined ? {} : { monthlyCredits: input.monthlyCredits }),
      ...(input.settleWith ? { settleWith: input.settleWith } : {}),
    },
    () => ask(input, config, deadlineOf(input.remainingMs)),
    (error) =>
      logger.warn('llm call failed', {
        purpose: input.purpose,
        model: input.model,
        schema: input.schemaName,
        error,
      }),
  );
}

/** What a provider call comes to: a value, or the sentence saying why there is none. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** The epoch ms by which a call with `remainingMs` left must be done (less the margin); Infinity without. */
export function deadlineOf(remainingMs: number | undefined): number {
  return remainingMs === undefined ? Infinity : clock.now().getTime() + remainingMs - DEADLINE_MARGIN_MS;
}

/**
 * One provider call on the organization's credits (chat completions here, speech and transcription in
 * speech.ts): `creditsModelName`'s credits are reserved before `call` runs (none left → "no credits
 * available", `call` never runs), settled when it answers a value, released when it fails or throws.
 * `charge: false` leaves the ledger to the caller. A failure is counted and told to `onFailure`.
 */
export async function chargedCall<T>(
  ledger: {
    organizationId: string;
    creditsModelName: string;
    charge?: boolean;
    /** The organization's monthly credits when the caller read them already. */
    monthlyCredits?: number | null;
    /** Writes that go with the settlement of a valid answer, in its transaction. */
    settleWith?: (value: T) => TransactItem[];
  },
  call: () => Promise<Outcome<T>>,
  onFailure: (error: string) => void,
): Promise<LlmCallResult<T>> {
  const charge =
    ledger.charge === false
      ? undefined
      : await reserve(ledger.organizationId, ledger.creditsModelName, ledger.monthlyCredits);
  if (charge === 'none')
    return { ok: false, error: 'no credits available: the organization has used its monthly credits', creditsUsed: 0 };
  let answer: Outcome<T>;
  try {
    answer = await call();
  } catch (error) {
    countMetric(METRIC.LlmCallErrors);
    if (charge) await releaseOrgCredits(ledger.organizationId, charge.cycle, charge.amount);
    throw error;
  }
  if (!answer.ok) {
    countMetric(METRIC.LlmCallErrors);
    if (charge) await releaseOrgCredits(ledger.organizationId, charge.cycle, charge.amount);
    onFailure(answer.error);
    return { ok: false, error: answer.error, creditsUsed: 0 };
  }
  const items = ledger.settleWith?.(answer.value) ?? [];
  let recorded: boolean | undefined;
  if (items.length) {
    recorded = await settleOrgCreditsWith(ledger.organizationId, charge?.cycle ?? '', charge?.amount ?? 0, items);
  } else if (charge) await settleOrgCredits(ledger.organizationId, charge.cycle, charge.amount);
  if (charge) countMetric(METRIC.CreditsCharged, charge.amount);
  return {
    ok: true,
    value: answer.value,
    creditsUsed: charge?.amount ?? 0,
    ...(recorded === undefined ? {} : { recorded }),
  };
}

/** The credits of a model by its evaluator-model record name: its `creditsPerEvaluation`, 1 without a record. */
export async function creditsPerCall(modelName: string): Promise<number> {
  return (await getModel(modelName))?.creditsPerEvaluation ?? 1;
}

async function reserve(
  organizationId: string,
  creditsModelName: string,
  monthlyCredits?: number | null,
): Promise<{ cycle: string; amount: number } | undefined | 'none'> {
  const amount = await creditsPerCall(creditsModelName);
  if (amount <= 0) return undefined;
  const cycle = cycleOf(clock.now());
  const limit =
    monthlyCredits !== undefined ? monthlyCredits : ((await getOrganization(organizationId))?.monthlyCredits ?? null);
  const reserved = await reserveOrgCredits(organizationId, cycle, amount, limit);
  return reserved ? { cycle, amount } : 'none';
}

/** Up to two answers: an invalid first one is shown back to the model with the reason, once. */
async function ask<T>(
  input: LlmCallInput<T>,
  cfg: LlmConfig,
  deadline: number,
): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let messages: LlmMessage[] = input.messages;
  let error = '';
  for (let round = 1; round <= ANSWER_ROUNDS; round++) {
    const sent = await send(input, messages, cfg, deadline);
    if (!sent.ok) return sent;
    const content = answerContent(sent.body, input.purpose);
    if (!content.ok) {
      error = content.error;
      continue;
    }
    const parsed = await parseAnswer<T>(content.content, input.schema, input.schemaName, input.purpose);
    const refused = parsed.ok ? input.refine?.(parsed.value) : undefined;
    if (parsed.ok && refused === undefined) return parsed;
    error = parsed.ok ? `the ${input.purpose}'s answer does not match ${input.schemaName}: ${refused}` : parsed.error;
    messages = [
      ...input.messages,
      { role: 'assistant', content: content.content },
      {
        role: 'user',
        content: `That answer cannot be used (${error}). Answer again with only one JSON object that matches the ${input.schemaName} schema.`,
      },
    ];
  }
  return { ok: false, error };
}

/** One Chat Completions answer over HTTP: the parsed body, undefined when it is not JSON. */
async function send<T>(
  input: LlmCallInput<T>,
  messages: LlmMessage[],
  cfg: LlmConfig,
  deadline: number,
): Promise<{ ok: true; body: unknown } | { ok: false; error: string }> {
  const body = JSON.stringify({
    model: input.model,
    messages,
    temperature: input.temperature ?? 0,
    response_format: {
      type: 'json_schema',
      json_schema: { name: input.schemaName, strict: true, schema: input.schema },
    },
  });
  const sent = await post(
    {
      path: '/chat/completions',
      body,
      who: `the ${input.purpose}`,
      log: { purpose: input.purpose, model: input.model },
    },
    cfg,
    deadline,
  );
  if (!sent.ok) return sent;
  try {
    return { ok: true, body: JSON.parse(new TextDecoder().decode(sent.body)) as unknown };
  } catch {
    // A 200 whose body is not a Chat Completions object: an invalid answer, which the caller may retry once.
    return { ok: true, body: undefined };
  }
}

/** One POST to the provider: where, what, and who answers (for the error sentences and log lines). */
export interface ProviderRequest {
  /** Under the base URL (which ends in /v1): `/chat/completions`, `/audio/speech`. */
  path: string;
  /** JSON text (sent as application/json), or a form (multipart, its boundary set by fetch). */
  body: string | FormData;
  /** Who answers, as errors name it: "the generator", "the speech model". */
  who: string;
  /** Keys of the attempt's debug line (never the body or a header). */
  log: Record<string, string>;
}

/**
 * A 2xx answer's body over HTTP, with retries of 429, 5xx, timeouts and network errors, each
 * attempt and wait on the service clock and within `deadline`; any other status fails at once,
 * quoting the body without the key.
 */
export async function post(
  request: ProviderRequest,
  cfg: LlmConfig,
  deadline: number,
): Promise<{ ok: true; body: Uint8Array } | { ok: false; error: string }> {
  const { baseUrl, apiKey, timeoutMs, maxAttempts } = cfg;
  const { who } = request;
  const headers: Record<string, string> = {};
  if (typeof request.body === 'string') headers['content-type'] = 'application/json';
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  let last = '';
  let retryAfter: number | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) {
      const wait = retryDelayMs(attempt - 1, retryAfter, cfg);
      if (clock.now().getTime() + wait >= deadline)
        return {
          ok: false,
          error: `${last} (after ${attempt - 1} attempt${attempt > 2 ? 's' : ''}; no time left for another)`,
        };
      await clock.sleep(wait);
    }
    const budget = Math.floor(Math.min(timeoutMs, deadline - clock.now().getTime()));
    if (budget <= 0) return { ok: false, error: `${who} was not asked: no time left in the job` };
    retryAfter = undefined;
    let status: number;
    let body: Uint8Array;
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    // The attempt's timeout (the body included) is armed on the service clock.
    const timeout = clock.timeout(budget);
    try {
      const res = await fetch(`${baseUrl!.replace(/\/$/, '')}${request.path}`, {
        method: 'POST',
        headers,
        body: request.body,
        signal: timeout.signal,
        redirect: 'error',
      });
      status = res.status;
      retryAfter = retryAfterMs(res.headers, clock.now().getTime());
      body = new Uint8Array(await res.arrayBuffer());
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      last =
        e.name === 'TimeoutError'
          ? `${who} did not answer within ${Math.round(budget)} ms`
          : `${who} could not be reached: ${e.cause?.code ?? e.message}`;
      const failure = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.name);
      logger.debug('llm call attempt', { ...request.log, attempt, ms: ms(), failure });
      continue;
    } finally {
      timeout.clear();
    }
    recordLatency(METRIC.LlmCallLatency, ms());
    logger.debug('llm call attempt', { ...request.log, attempt, status, ms: ms() });
    if (status < 200 || status > 299) {
      const text = new TextDecoder().decode(body).trim();
      const said = apiKey ? text.split(apiKey).join('***') : text;
      last = `${who} answered HTTP ${status}${said ? `: ${quote(said)}` : ''}`;
      if (status === 429 || status >= 500) continue;
      return { ok: false, error: last };
    }
    return { ok: true, body };
  }
  return { ok: false, error: `${last} (after ${maxAttempts} attempts)` };
}
