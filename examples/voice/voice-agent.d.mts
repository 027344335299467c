// Types of voice-agent.mjs for the TypeScript tests.
export function startVoiceAgent(options?: {
  port?: number;
  delayMs?: number;
  hangUpAfter?: number;
  say?: string;
  /** Stop talking when the caller speaks over an answer for 100 ms (default true). */
  bargeIn?: boolean;
  onAnswer?: (a: {
    heard: string;
    said: string;
    latencyMs: number;
    customParameters: Record<string, string>;
    /** Set when the caller barged in: how long the agent had been talking when it stopped. */
    interruptedAfterMs?: number;
  }) => void;
}): Promise<{ url: string; close: () => Promise<void> }>;
