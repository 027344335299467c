import type { AuthContext } from '../../../auth/context.js';
import { takeRateSlot } from '../../../db/rate-limits.js';
import { ValidationError } from '../../../errors.js';
import type {
  EndpointConnectionTestBody,
  EndpointConnectionTestResult,
} from '../../../schemas/endpoint-connection-test.js';
import { clock } from '../../common/clock.js';
import { newId } from '../../common/ids.js';
import { loadAgentConnection } from './connection.js';
import { callAgent } from './index.js';
import type { SlotResult } from './types.js';

/**
 * The time one test call may take: API Gateway ends a request after 29 s, and the answer must
 * still be written. Attempts are cut to what is left; a retry or rate-limit wait that does not fit
 * is reported instead of waited for.
 */
export const TEST_CALL_BUDGET_MS = 25_000;

/** Variables the body's own fields set. */
const RESERVED_VARIABLES = ['input', 'context'];

/**
 * `POST /endpointConnections/{id}/test`: one real call with the connection's settings (auth,
 * timeout, retries, rate limit), as a run would make it. Nothing is stored except the rate-limit
 * token the call takes.
 */
export async function testEndpointConnection(
  auth: AuthContext,
  id: string,
  body: EndpointConnectionTestBody,
): Promise<EndpointConnectionTestResult> {
  for (const name of RESERVED_VARIABLES) {
    if (body.variables && Object.hasOwn(body.variables, name)) {
      throw new ValidationError(`variables.${name} is not allowed: the ${name} field sets it`);
    }
  }
  const now = () => clock.now().getTime();
  const started = now();
  const { connection } = await loadAgentConnection(auth.organizationId, id);
  const remaining = () => TEST_CALL_BUDGET_MS - (now() - started);
  const variables: Record<string, unknown> = {
    inference_result_id: newId('inferenceResult'),
    ...(body.variables ?? {}),
    input: body.input,
    context: body.context ?? undefined,
  };

  const rateLimit = connection.rateLimit;
  const takeSlot =
    rateLimit && rateLimit > 0
      ? async (): Promise<SlotResult> => {
          for (;;) {
            const slot = await takeRateSlot(connection.id, rateLimit, now());
            if (slot.ok) return slot;
            const wait = slot.retryAt - now();
            // Wait for the slot when it comes soon enough; otherwise report it.
            if (wait > remaining() - 1000) return slot;
            await clock.sleep(Math.max(0, wait));
          }
        }
      : undefined;

  const result = await callAgent(connection, variables, {
    remainingMs: remaining(),
    ...(takeSlot ? { takeSlot } : {}),
  });
  switch (result.kind) {
    case 'ok':
      return {
        request: result.exchange.request,
        response: result.exchange.response ?? null,
        extracted: result.extracted,
        attempts: result.attempts,
        latencyMs: result.latencyMs,
        error: null,
      };
    case 'failed':
      return {
        request: result.exchange?.request ?? null,
        response: result.exchange?.response ?? null,
        extracted: {},
        attempts: result.attempts,
        latencyMs: result.latencyMs ?? null,
        error: result.error,
      };
    case 'requeue':
      return {
        request: result.exchange?.request ?? null,
        response: result.exchange?.response ?? null,
        extracted: {},
        attempts: result.attempts,
        latencyMs: null,
        error:
          result.reason === 'rate_limited'
            ? `the connection's rate limit (${rateLimit} per minute) has no free slot for ${Math.ceil(result.delayMs / 1000)} s; a run would wait for it`
            : result.delayMs > 0
              ? `${result.lastError ? `${result.lastError}; ` : ''}the next retry would wait ${Math.ceil(result.delayMs / 1000)} s, longer than a test call may take (${TEST_CALL_BUDGET_MS / 1000} s); a run would retry later`
              : `no time was left for another attempt within a test call's ${TEST_CALL_BUDGET_MS / 1000} s; a run would retry later`,
      };
  }
}
