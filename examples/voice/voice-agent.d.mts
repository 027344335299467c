// Types of voice-agent.mjs for the TypeScript tests.
export function startVoiceAgent(options?: {
  port?: number;
  delayMs?: number;
  hangUpAfter?: number;
  say?: string;
  onAnswer?: (a: { heard: string; said: string; latencyMs: number; customParameters: Record<string, string> }) => void;
}): Promise<{ url: string; close: () => Promise<void> }>;
