import { createServer, type Server } from 'node:http';

export type JudgeMode = 'good' | 'garbage' | 'timeout' | 'flaky429' | 'error500';

/** An OpenAI-compatible judge on 127.0.0.1 whose behaviour a test sets. */
export async function startJudge(): Promise<{ url: string; setMode: (m: JudgeMode, score?: number) => void; requests: unknown[]; close: () => Promise<void> }> {
  let mode: JudgeMode = 'good';
  let score = 0.75;
  let calls = 0;
  const requests: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push(JSON.parse(body || '{}'));
      calls++;
      const answer = (content: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      if (mode === 'timeout') return; // never answers
      if (mode === 'error500') return res.writeHead(500).end('boom');
      if (mode === 'flaky429' && calls % 2 === 1) return res.writeHead(429).end('slow down');
      if (mode === 'garbage') return answer('I think it is pretty good, maybe 8/10.');
      answer(JSON.stringify({ score, reason: 'judged by the test judge' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    setMode: (m, s) => {
      mode = m;
      calls = 0;
      if (s !== undefined) score = s;
    },
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
