import { ENV, optionalEnv } from '../config/env.js';
import type { ChatMessage } from '../domain/evaluation/judge-prompt.js';

/** An OpenAI-compatible chat-completions client for the LLM judge. */
export interface JudgeConfig {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
  maxAttempts: number;
  /** Base of the full-jitter backoff between attempts. */
  backoffMs: number;
}

let config: JudgeConfig = {
  baseUrl: optionalEnv(ENV.judgeBaseUrl),
  apiKey: optionalEnv(ENV.judgeApiKey),
  timeoutMs: 30_000,
  maxAttempts: 3,
  backoffMs: 500,
};

export function judgeConfig(): JudgeConfig {
  return config;
}

/** For tests and the local runtime: point the judge somewhere else. */
export function setJudgeConfig(patch: Partial<JudgeConfig>): void {
  config = { ...config, ...patch };
}

export class JudgeUnavailableError extends Error {}

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Sends the messages and returns the answer text. Up to `maxAttempts` attempts on 429, 5xx and
 * timeouts, with full-jitter exponential backoff; other failures end at once.
 */
export async function askJudge(model: string, messages: ChatMessage[]): Promise<string> {
  const { baseUrl, apiKey, timeoutMs, maxAttempts, backoffMs } = config;
  if (!baseUrl) throw new JudgeUnavailableError('no judge model is configured');
  let last = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, Math.random() * backoffMs * 2 ** (attempt - 1)));
    let res: Response;
    try {
      res = await fetch(`${baseUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model, messages, temperature: 0 }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      last = (error as Error).name === 'TimeoutError' ? `the judge did not answer within ${timeoutMs} ms` : `the judge could not be reached: ${(error as Error).message}`;
      continue;
    }
    if (!res.ok) {
      last = `the judge answered HTTP ${res.status}`;
      if (retryable(res.status)) continue;
      throw new JudgeUnavailableError(last);
    }
    const body = (await res.json().catch(() => undefined)) as { choices?: { message?: { content?: unknown } }[] } | undefined;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new JudgeUnavailableError('the judge answered without a message');
    return content;
  }
  throw new JudgeUnavailableError(`${last} (after ${maxAttempts} attempts)`);
}
