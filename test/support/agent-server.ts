import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** What the agent saw of one request. */
export interface SeenRequest {
  method: string;
  /** Path and query as sent, e.g. `/sessions/a%2F1/ask?message=hi`. */
  url: string;
  /** Query parameters, each with every value it had. */
  query: Record<string, string[]>;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
  /** Epoch ms when the request arrived. */
  at: number;
}

/** Answers one request; `i` is its 0-based position since the log was last cleared. */
export type AgentHandler = (req: SeenRequest, res: ServerResponse, i: number) => unknown;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Answers `{reply: <message of the body or the query>, headers: <the request's headers>}`. */
export const echoAgent: AgentHandler = (req, res) => {
  const message =
    req.json && typeof req.json === 'object' && 'message' in req.json
      ? req.json.message
      : (req.query.message?.[0] ?? '');
  sendJson(res, 200, { reply: message, headers: req.headers });
};

export interface TestAgentServer {
  url: string;
  requests: SeenRequest[];
  setHandler(handler: AgentHandler): void;
  close(): Promise<void>;
}

/** An agent on 127.0.0.1 that records every request (method, url, query, headers, body, time). */
export async function startAgent(handler: AgentHandler = echoAgent): Promise<TestAgentServer> {
  let current = handler;
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const parsed = new URL(req.url ?? '/', 'http://agent.local');
      const query: Record<string, string[]> = {};
      for (const [k, v] of parsed.searchParams) (query[k] ??= []).push(v);
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        query,
        headers: req.headers,
        body,
        json,
        at: Date.now(),
      };
      const i = requests.length;
      requests.push(seen);
      void Promise.resolve(current(seen, res, i)).catch(() => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
