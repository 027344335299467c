import { parseRetryAfter, retryWait } from './backoff.js';
import { AddressNotAllowedError, privateNetworksAllowed, resolveChecked } from '../../../outbound/guard.js';
import { mapAnswer } from './mapping.js';
import { cutBody, redactorFor, REDACTED, type Redactor } from './redact.js';
import { buildRequest, RequestBuildError, secretsOf, type AgentRequest } from './request.js';
import { sendOnce, type SendOutcome } from '../../../outbound/send.js';
import type { AgentConnection, CallExchange, CallOptions, CallResult } from './types.js';
import { logger } from '../../../observability/logger.js';
import { countAgentCallError, METRIC, recordLatency, statusClassOf } from '../../../observability/metrics.js';
import type { AgentStatusClass } from '../../../observability/metrics.js';
import { clock } from '../../common/clock.js';

/**
 * The agent caller: one module calls a customer's agent. It renders the request,
 * adds the auth header, resolves and checks the address before every attempt, takes a rate slot
 * before every attempt, sends with the per-attempt timeout, reads at most 5 MiB, retries by the
 * connection's strategy (Retry-After honoured) and maps the answer. Nothing it returns holds a
 * secret: credentials are replaced by `***` in the exchange, the errors and the mapped values.
 */

export type { AgentConnection, CallExchange, CallOptions, CallResult, SlotResult } from './types.js';
export { privateNetworksAllowed } from '../../../outbound/guard.js';
export { renderTemplate, TemplateRenderError, type TemplateContext } from './template.js';
export { checkAddress, resolveChecked, AddressNotAllowedError, type AddressCheck } from '../../../outbound/guard.js';
export { backoffDelay, parseRetryAfter, retryWait } from './backoff.js';
export { mapAnswer, parseAnswerBody, type MappedAnswer } from './mapping.js';
export { buildRequest, RequestBuildError, USER_AGENT } from './request.js';
export { MAX_ANSWER_BYTES } from '../../../outbound/send.js';
export { REDACTED, cutBody } from './redact.js';
// toAgentConnection and loadAgentConnection live in ./connection.js (it reads the table; this module does not).

export const TIMEOUT_DEFAULT_S = 15;
export const TIMEOUT_MAX_S = 120;
/** How much of an answer an error quotes. */
const ERROR_BODY_CHARS = 500;
const DEFAULT_RETRYABLE = [429, 500, 502, 503, 504];
/** An attempt needs at least this much of `remainingMs`, or the call goes back on the queue. */
const MIN_ATTEMPT_MS = 1000;

export function attemptTimeoutMs(connection: Pick<AgentConnection, 'timeout'>): number {
  const seconds = connection.timeout ?? TIMEOUT_DEFAULT_S;
  return Math.min(Math.max(1, seconds), TIMEOUT_MAX_S) * 1000;
}

/** A failed attempt's `failure` classes it for the metrics; none when no call was made or it was cancelled. */
type Attempt =
  | { kind: 'success'; outcome: Extract<SendOutcome, { kind: 'answer' }> }
  | { kind: 'retryable'; error: string; retryAfterMs?: number; outcome?: SendOutcome; failure?: AgentStatusClass }
  | { kind: 'fatal'; error: string; outcome?: SendOutcome; failure?: AgentStatusClass };

export async function callAgent(
  connection: AgentConnection,
  variables: Record<string, unknown>,
  options: CallOptions = {},
): Promise<CallResult> {
  const now = () => clock.now().getTime();
  const callStarted = now();
  const redact = redactorFor(secretsOf(connection));
  const allowPrivate = options.allowPrivateNetworks ?? privateNetworksAllowed();
  const timeoutMs = attemptTimeoutMs(connection);
  const retriesAllowed = connection.retryEnabled ? Math.max(0, connection.retryMaxAttempts ?? 0) : 0;
  const retryable = new Set(connection.retryableStatusCodes ?? DEFAULT_RETRYABLE);
  const policy = {
    strategy: connection.retryBackoffStrategy ?? 'EXPONENTIAL',
    initialMs: connection.retryInitialDelayMs ?? 1000,
    maxDelayMs: connection.retryMaxDelayMs ?? 30_000,
  };
  const left = () => (options.remainingMs === undefined ? Infinity : options.remainingMs - (now() - callStarted));

  let request: AgentRequest;
  try {
    request = buildRequest(connection, variables);
  } catch (error) {
    if (error instanceof RequestBuildError) return { kind: 'failed', error: redact.text(error.message), attempts: 0 };
    throw error;
  }
  const shownRequest = exchangeRequest(request, redact);

  let attempts = options.attemptsSoFar ?? 0;
  for (;;) {
    if (options.signal?.aborted)
      return { kind: 'failed', error: 'the call was cancelled', attempts, exchange: { request: shownRequest } };
    // Too little time for an attempt: go back on the queue before taking a slot or an attempt.
    if (left() < MIN_ATTEMPT_MS) return { kind: 'requeue', reason: 'retry_wait', delayMs: 0, attempts };
    if (options.takeSlot) {
      const slot = await options.takeSlot();
      if (!slot.ok)
        return { kind: 'requeue', reason: 'rate_limited', delayMs: Math.max(0, slot.retryAt - now()), attempts };
    }
    attempts++;
    const budget = Math.min(timeoutMs, left());
    const { attempt, outcome } = await attemptOnce(request, allowPrivate, budget, retryable, options.signal);
    const exchange: CallExchange = {
      request: shownRequest,
      ...(outcome && 'status' in outcome ? { response: exchangeResponse(outcome, redact) } : {}),
    };
    const latencyMs = outcome?.durationMs;
    observeAttempt(request, attempts, attempt, outcome);

    if (attempt.kind === 'success') {
      const mapped = mapAnswer(attempt.outcome.body, connection.outputMapping);
      if (!mapped.ok) {
        countAgentCallError('invalid_answer');
        return {
          kind: 'failed',
          error: redact.text(`${mapped.error}; the answer was: ${excerpt(attempt.outcome.body)}`),
          attempts,
          latencyMs,
          exchange,
        };
      }
      const { ok: _ok, ...answer } = mapped;
      return { kind: 'ok', ...redact.deep(answer), latencyMs: attempt.outcome.durationMs, attempts, exchange };
    }
    if (attempt.kind === 'fatal') return failed(attempt.error, attempts, latencyMs, exchange, redact);

    const retriesDone = attempts - 1;
    if (retriesDone >= retriesAllowed) {
      const suffix = retriesAllowed > 0 ? ` (after ${attempts} attempts)` : '';
      return failed(`${attempt.error}${suffix}`, attempts, latencyMs, exchange, redact);
    }
    const wait = retryWait(policy, retriesDone + 1, attempt.retryAfterMs);
    // The wait and the next attempt must fit the time left, or the job goes back on the queue.
    if (wait + Math.min(timeoutMs, MIN_ATTEMPT_MS) > left()) {
      return {
        kind: 'requeue',
        reason: 'retry_wait',
        delayMs: wait,
        attempts,
        exchange,
        lastError: redact.text(attempt.error),
      };
    }
    if (wait > 0) {
      try {
        await clock.sleep(wait, options.signal);
      } catch {
        return { kind: 'failed', error: 'the call was cancelled', attempts, latencyMs, exchange };
      }
    }
  }
}

async function attemptOnce(
  request: AgentRequest,
  allowPrivate: boolean,
  timeoutMs: number,
  retryable: Set<number>,
  signal?: AbortSignal,
): Promise<{ attempt: Attempt; outcome?: SendOutcome }> {
  let addresses: Awaited<ReturnType<typeof resolveChecked>>;
  try {
    addresses = await resolveChecked(request.url.hostname, allowPrivate);
  } catch (error) {
    if (error instanceof AddressNotAllowedError) {
      return { attempt: { kind: 'fatal', error: error.message, failure: 'blocked' } };
    }
    const code = (error as NodeJS.ErrnoException).code;
    const message = `the agent's host ${request.url.hostname} could not be resolved${code ? ` (${code})` : ''}`;
    return { attempt: { kind: 'retryable', error: message, failure: 'network' } };
  }
  if (timeoutMs <= 0) return { attempt: { kind: 'retryable', error: 'no time was left for the attempt' } };
  const outcome = await sendOnce(request, addresses, timeoutMs, signal);
  switch (outcome.kind) {
    case 'timeout': {
      const error = `the agent did not answer within ${Math.round(timeoutMs / 100) / 10} s`;
      return { attempt: { kind: 'retryable', error, outcome, failure: 'timeout' }, outcome };
    }
    case 'network': {
      const error = `the connection to the agent failed: ${outcome.error}`;
      return { attempt: { kind: 'retryable', error, outcome, failure: 'network' }, outcome };
    }
    case 'aborted':
      return { attempt: { kind: 'fatal', error: 'the call was cancelled', outcome }, outcome };
    case 'too_large': {
      const error = `the answer is larger than 5 MiB (status ${outcome.status})`;
      return { attempt: { kind: 'fatal', error, outcome, failure: 'too_large' }, outcome };
    }
    case 'answer': {
      const { status } = outcome;
      if (status >= 200 && status < 300) return { attempt: { kind: 'success', outcome }, outcome };
      const error =
        status >= 300 && status < 400
          ? `the agent answered ${status} (redirects are not followed${outcome.headers.location ? `; Location: ${outcome.headers.location.slice(0, 200)}` : ''})`
          : `the agent answered ${status}: ${excerpt(outcome.body)}`;
      const failure = statusClassOf(status);
      if (retryable.has(status)) {
        const retryAfterMs = parseRetryAfter(outcome.headers['retry-after'], clock.now().getTime());
        const after = retryAfterMs !== undefined ? { retryAfterMs } : {};
        return { attempt: { kind: 'retryable', error, ...after, outcome, failure }, outcome };
      }
      return { attempt: { kind: 'fatal', error, outcome, failure }, outcome };
    }
  }
}

/**
 * Metrics and a debug line for one attempt: the latency of an answer, the class of a failure. The
 * line names the host only: the path and query may carry what the connection's templates put there.
 */
function observeAttempt(request: AgentRequest, attempt: number, result: Attempt, outcome: SendOutcome | undefined) {
  const status = outcome && 'status' in outcome ? outcome.status : undefined;
  const failure = result.kind === 'success' ? undefined : result.failure;
  if (status !== undefined) recordLatency(METRIC.AgentCallLatency, outcome!.durationMs);
  if (failure) countAgentCallError(failure);
  logger.debug('agent call attempt', {
    host: request.url.host,
    attempt,
    ...(status !== undefined ? { status } : { outcome: outcome?.kind ?? failure ?? 'not sent' }),
    ...(outcome ? { ms: outcome.durationMs } : {}),
  });
}

function failed(
  error: string,
  attempts: number,
  latencyMs: number | undefined,
  exchange: CallExchange,
  redact: Redactor,
): CallResult {
  return {
    kind: 'failed',
    error: redact.text(error),
    attempts,
    ...(latencyMs !== undefined ? { latencyMs } : {}),
    exchange,
  };
}

function excerpt(body: string): string {
  const text = body.trim();
  if (text === '') return '(empty body)';
  return text.length > ERROR_BODY_CHARS ? `${text.slice(0, ERROR_BODY_CHARS)}…` : text;
}

function exchangeRequest(request: AgentRequest, redact: Redactor): CallExchange['request'] {
  const headers = redact.headers(request.headers);
  if (request.authHeader) {
    const value = request.headers[request.authHeader]!;
    const scheme = /^(Bearer|Basic) /.exec(value)?.[1];
    headers[request.authHeader] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
  }
  return {
    method: request.method,
    url: redact.text(request.url.toString()),
    headers,
    body: request.body === null ? null : cutBody(redact.text(request.body)),
  };
}

function exchangeResponse(
  outcome: Extract<SendOutcome, { status: number }>,
  redact: Redactor,
): CallExchange['response'] {
  return {
    status: outcome.status,
    headers: redact.headers(outcome.headers),
    body: 'body' in outcome ? cutBody(redact.text(outcome.body)) : '',
  };
}
