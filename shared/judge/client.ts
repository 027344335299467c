import { callLlm, type LlmMessage } from '../llm/client.js';

/** The judge's answer (structured output `judge_score`): a score in [0, 1] and why. */
export const JUDGE_SCORE_SCHEMA = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['score', 'reason'],
  additionalProperties: false,
} as const;

export interface JudgeScore {
  score: number;
  reason: string;
}

/**
 * Asks the judge through the one LLM client. The evaluator keeps its own credit ledger (the
 * reservation is marked on the evaluation and, for monitors, also taken against the monitor's cap
 * in the same transaction), so nothing is charged here.
 */
export async function askJudge(
  organizationId: string,
  model: string,
  messages: LlmMessage[],
): Promise<{ ok: true; value: JudgeScore } | { ok: false; error: string }> {
  return callLlm<JudgeScore>({
    purpose: 'judge',
    organizationId,
    model,
    messages,
    schemaName: 'judge_score',
    schema: JUDGE_SCORE_SCHEMA,
    charge: false,
  });
}
