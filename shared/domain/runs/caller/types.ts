/** The types of the agent caller (the interface the run job and the test route use). */
import type { MappedAnswer } from './mapping.js';

export interface AgentConnection {
  id: string;
  url: string;
  httpMethod: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  authType: 'NONE' | 'BEARER' | 'API_KEY' | 'BASIC';
  authToken?: string;
  username?: string;
  password?: string;
  headers?: Record<string, string>;
  inputTemplate: string;
  outputMapping: Record<string, string>;
  /** Per-attempt timeout in seconds: default 15, capped at 120. */
  timeout?: number;
  rateLimit?: number | null;
  retryEnabled?: boolean;
  retryMaxAttempts?: number;
  retryInitialDelayMs?: number;
  retryBackoffStrategy?: 'FIXED' | 'EXPONENTIAL' | 'LINEAR';
  retryMaxDelayMs?: number;
  retryableStatusCodes?: number[];
}

export type SlotResult = { ok: true } | { ok: false; retryAt: number /* epoch ms */ };

export interface CallOptions {
  /** Time left in the Lambda: a retry wait (plus the next attempt) that does not fit → requeue; no attempt runs past it. */
  remainingMs?: number;
  /** Default: env AGENT_ALLOW_PRIVATE_NETWORKS === 'true'. */
  allowPrivateNetworks?: boolean;
  /** The rate limiter, called before EVERY attempt including retries. */
  takeSlot?: () => Promise<SlotResult>;
  signal?: AbortSignal;
  /**
   * Attempts already spent on this call before it went back on the queue (a `requeue` with
   * reason `retry_wait` answers them): retries continue from there instead of starting over.
   */
  attemptsSoFar?: number;
}

export interface CallExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
  response?: { status: number; headers: Record<string, string>; body: string };
}

export type CallResult =
  | ({ kind: 'ok'; latencyMs: number; attempts: number; exchange: CallExchange } & MappedAnswer)
  | { kind: 'failed'; error: string; attempts: number; latencyMs?: number; exchange?: CallExchange }
  | {
      kind: 'requeue';
      delayMs: number;
      attempts: number;
      reason: 'rate_limited' | 'retry_wait';
      /** The last attempt's exchange and error, when an attempt failed before going back on the queue. */
      exchange?: CallExchange;
      lastError?: string;
    };
