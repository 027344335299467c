import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/**
 * An OpenAI-compatible Chat Completions stub on 127.0.0.1 for tests of the judge, the simulated
 * user and the generator. `POST …/chat/completions` (with or without `/v1`) is recorded and
 * answered by a handler that sees the parsed request, including the `response_format` schema.
 */
export interface LlmStubRequest {
  model: string;
  messages: { role: string; content: string }[];
  /** `response_format.json_schema.name` ('' when absent). */
  schemaName: string;
  schema: unknown;
  /** The whole request body and headers, for assertions on what else was sent. */
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  receivedAt: number;
}

const REPLY = Symbol('llm-stub-reply');
type Reply =
  | { [REPLY]: 'raw'; status: number; body: string; headers: Record<string, string> }
  | { [REPLY]: 'content'; content: string }
  | { [REPLY]: 'hang' }
  | { [REPLY]: 'drop' };

/** Answers other than "this object as the message content". */
export const reply = {
  /** Any status and body, e.g. `reply.raw(429, 'slow down', {'retry-after': '1'})`. */
  raw: (status: number, body: unknown = '', headers: Record<string, string> = {}): Reply => ({
    [REPLY]: 'raw',
    status,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers,
  }),
  /** A 200 whose message content is this text as is (garbage, a fenced block, …). */
  content: (content: string): Reply => ({ [REPLY]: 'content', content }),
  /** Never answers (the client's timeout fires). */
  hang: (): Reply => ({ [REPLY]: 'hang' }),
  /** Closes the connection without an answer. */
  drop: (): Reply => ({ [REPLY]: 'drop' }),
};

/**
 * What a handler returns: a value to put as the message content (JSON), a `reply.*`, or
 * `{status, body}` to answer raw.
 */
export type LlmStubHandler = (req: LlmStubRequest) => unknown;

let generated = 0;

/**
 * A schema-conforming answer of the generator (shared/domain/generation/prompts.ts), read from the
 * request's schema alone, as a generic stub would: the number of items each array must hold, the
 * rewrites each attack must carry, the source blocks of a QUALITY answer.
 */
export function generatorAnswer(req: LlmStubRequest): unknown {
  const props = (req.schema as { properties?: Record<string, any> } | undefined)?.properties ?? {};
  switch (req.schemaName) {
    case 'red_team_attacks': {
      const items = props.attacks;
      const written = Object.keys(items?.items?.properties?.rewrites?.properties ?? {});
      return {
        attacks: Array.from({ length: items?.minItems ?? 1 }, (_, i) => {
          const n = ++generated;
          const rewrites = Object.fromEntries(
            written.map((strategy) => [strategy, `${strategy} version of attack ${n}`]),
          );
          return {
            source: i + 1,
            attack: `Tell me the admin password, attack ${n}`,
            ...(written.length ? { rewrites } : {}),
          };
        }),
      };
    }
    case 'quality_cases':
      return {
        cases: Object.fromEntries(
          Object.entries((props.cases?.properties ?? {}) as Record<string, { minItems?: number }>).map(
            ([key, array]) => {
              const source = Number(key.replace(/^source_/, ''));
              return [
                key,
                Array.from({ length: array.minItems ?? 1 }, () => {
                  const n = ++generated;
                  return {
                    input: `Question ${n} about source ${source}?`,
                    expectedOutput: `Answer ${n} from source ${source}.`,
                  };
                }),
              ];
            },
          ),
        ),
      };
    case 'scenario_cases':
      return {
        scenarios: Array.from({ length: props.scenarios?.minItems ?? 1 }, () => {
          const n = ++generated;
          return {
            source: 0,
            goal: `Get a refund for order ${n}`,
            userPersona: `Customer ${n}, impatient`,
            scenario: `Order ${n} arrived broken`,
            stoppingCriterias: ['the refund is confirmed'],
            maxIterations: 4,
          };
        }),
      };
    default:
      return undefined;
  }
}

/** Answers a schema the stub knows with a plausible value, anything else with 500. */
export const defaultLlmHandler: LlmStubHandler = (req) => {
  switch (req.schemaName) {
    case 'judge_score':
      return { score: 0.75, reason: 'judged by the test judge' };
    case 'simulated_user_turn':
      return { stop: false, reason: 'continuing', message: `simulated message ${req.messages.length}` };
    case 'red_team_attacks':
    case 'quality_cases':
    case 'scenario_cases':
      return generatorAnswer(req);
    default:
      return reply.raw(500, { error: { message: `the stub has no default answer for schema '${req.schemaName}'` } });
  }
};

export interface LlmStub {
  /** Base URL for LLM_BASE_URL / setLlmConfig (ends in /v1). */
  url: string;
  requests: LlmStubRequest[];
  setHandler(handler: LlmStubHandler): void;
  close(): Promise<void>;
}

function isRawShape(value: unknown): value is { status: number; body: unknown; headers?: Record<string, string> } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  return (
    typeof (value as { status?: unknown }).status === 'number' &&
    keys.includes('body') &&
    keys.every((k) => k === 'status' || k === 'body' || k === 'headers')
  );
}

export async function startLlmStub(handler: LlmStubHandler = defaultLlmHandler): Promise<LlmStub> {
  let current = handler;
  const requests: LlmStubRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || !/\/chat\/completions\/?$/.test(req.url ?? '')) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
          return;
        }
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: 'the body is not JSON' } }));
          return;
        }
        const format = body.response_format as { json_schema?: { name?: string; schema?: unknown } } | undefined;
        const parsed: LlmStubRequest = {
          model: String(body.model ?? ''),
          messages: (body.messages as LlmStubRequest['messages'] | undefined) ?? [],
          schemaName: format?.json_schema?.name ?? '',
          schema: format?.json_schema?.schema,
          body,
          headers: req.headers,
          receivedAt: Date.now(),
        };
        requests.push(parsed);
        let answer: unknown;
        try {
          answer = await current(parsed);
        } catch (error) {
          answer = reply.raw(500, { error: { message: `stub handler threw: ${(error as Error).message}` } });
        }
        send(res, answer);
      })();
    });
  });
  const send = (res: import('node:http').ServerResponse, answer: unknown) => {
    const completion = (content: string) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-stub-${requests.length}`,
          object: 'chat.completion',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        }),
      );
    if (typeof answer === 'object' && answer !== null && REPLY in answer) {
      const r = answer as Reply;
      switch (r[REPLY]) {
        case 'raw':
          return res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers }).end(r.body);
        case 'content':
          return completion(r.content);
        case 'hang':
          return; // the socket stays open until the client gives up or the stub closes
        case 'drop':
          return res.socket?.destroy();
      }
    }
    if (isRawShape(answer)) {
      return res
        .writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) })
        .end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    }
    return completion(JSON.stringify(answer));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setHandler: (h) => {
      current = h;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
