import { reply, startLlmStub, type LlmStubRequest } from './llm-server.js';

export type JudgeMode = 'good' | 'garbage' | 'timeout' | 'flaky429' | 'error500';

/** The LLM stub playing the judge in a few named modes (the evaluator and monitor tests). */
export async function startJudge(): Promise<{
  url: string;
  setMode: (m: JudgeMode, score?: number) => void;
  requests: LlmStubRequest[];
  close: () => Promise<void>;
}> {
  let mode: JudgeMode = 'good';
  let score = 0.75;
  let calls = 0;
  const stub = await startLlmStub(() => {
    calls++;
    if (mode === 'timeout') return reply.hang();
    if (mode === 'error500') return reply.raw(500, 'boom');
    if (mode === 'flaky429' && calls % 2 === 1) return reply.raw(429, 'slow down');
    if (mode === 'garbage') return reply.content('I think it is pretty good, maybe 8/10.');
    return { score, reason: 'judged by the test judge' };
  });
  return {
    url: stub.url,
    setMode: (m, s) => {
      mode = m;
      calls = 0;
      if (s !== undefined) score = s;
    },
    requests: stub.requests,
    close: stub.close,
  };
}
