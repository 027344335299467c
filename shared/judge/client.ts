import { JUDGE_SCORE_SCHEMA } from '../llm/answer-schemas.js';
import { callLlm, type LlmMessage } from '../llm/client.js';

export { JUDGE_SCORE_SCHEMA };

/** The judge's answer (structured output `judge_score`, JUDGE_SCORE_SCHEMA): a score in [0, 1] and why. */
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
