import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { textToWav, wavToText } from '../../examples/voice/tone-codec.mjs';

/**
 * An OpenAI-compatible stub on 127.0.0.1 for tests of the judge, the simulated user, the generator
 * and the speech of voice runs. `POST …/chat/completions` (with or without `/v1`) is recorded and
 * answered by a handler that sees the parsed request, including the `response_format` schema;
 * `POST …/audio/speech` and `POST …/audio/transcriptions` likewise, each with its own handler, by
 * default speaking and reading the tone codec (examples/voice/tone-codec.mjs).
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

/** A `POST /audio/speech` request. */
export interface SpeechStubRequest {
  model: string;
  voice: string;
  /** The text to say. */
  input: string;
  responseFormat: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  receivedAt: number;
}

/** A `POST /audio/transcriptions` request (multipart/form-data). */
export interface TranscriptionStubRequest {
  model: string;
  /** The `language` field, undefined when absent. */
  language: string | undefined;
  responseFormat: string;
  /** The uploaded `file`: its bytes, name and type. */
  file: Uint8Array;
  fileName: string;
  fileType: string;
  /** Every text field of the form. */
  fields: Record<string, string>;
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
/** What a speech handler returns: the audio (WAV bytes, answered as audio/wav), a `reply.*`, or `{status, body}`. */
export type SpeechStubHandler = (req: SpeechStubRequest) => unknown;
/** What a transcription handler returns: the JSON body (`{text}`), a `reply.*`, or `{status, body}`. */
export type TranscriptionStubHandler = (req: TranscriptionStubRequest) => unknown;

let generated = 0;

/**
 * A schema-conforming answer of the generator (shared/domain/generation/answers.ts), read from the
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

/** Speaks the text in tones, as a 24 kHz WAV (the service resamples it). */
export const defaultSpeechHandler: SpeechStubHandler = (req) => textToWav(req.input);

/** Reads the tones of the uploaded WAV back as text. */
export const defaultTranscriptionHandler: TranscriptionStubHandler = (req) => ({ text: wavToText(req.file) });

export interface LlmStub {
  /** Base URL for LLM_BASE_URL / setLlmConfig (ends in /v1). */
  url: string;
  /** Chat Completions requests. */
  requests: LlmStubRequest[];
  speechRequests: SpeechStubRequest[];
  transcriptionRequests: TranscriptionStubRequest[];
  setHandler(handler: LlmStubHandler): void;
  setSpeechHandler(handler: SpeechStubHandler): void;
  setTranscriptionHandler(handler: TranscriptionStubHandler): void;
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
  let speech = defaultSpeechHandler;
  let transcription = defaultTranscriptionHandler;
  const requests: LlmStubRequest[] = [];
  const speechRequests: SpeechStubRequest[] = [];
  const transcriptionRequests: TranscriptionStubRequest[] = [];
  const fail = (res: ServerResponse, status: number, message: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
  /** The handler's answer, or a 500 saying it threw. */
  const answerOf = async (run: () => unknown): Promise<unknown> => {
    try {
      return await run();
    } catch (error) {
      return reply.raw(500, { error: { message: `stub handler threw: ${(error as Error).message}` } });
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const route =
          req.method === 'POST'
            ? /\/(chat\/completions|audio\/speech|audio\/transcriptions)\/?$/.exec(req.url ?? '')?.[1]
            : undefined;
        if (!route) return fail(res, 404, `no route ${req.method} ${req.url}`);
        if (route === 'audio/transcriptions') {
          let form: FormData;
          try {
            form = await new Response(raw, {
              headers: { 'content-type': req.headers['content-type'] ?? '' },
            }).formData();
          } catch {
            return fail(res, 400, 'the body is not multipart/form-data');
          }
          const file = form.get('file');
          if (!(file instanceof Blob)) return fail(res, 400, "the form has no 'file'");
          const fields = Object.fromEntries(
            [...form.entries()].filter((e): e is [string, string] => typeof e[1] === 'string'),
          );
          const parsed: TranscriptionStubRequest = {
            model: fields.model ?? '',
            language: fields.language,
            responseFormat: fields.response_format ?? '',
            file: new Uint8Array(await file.arrayBuffer()),
            fileName: (file as File).name ?? '',
            fileType: file.type,
            fields,
            headers: req.headers,
            receivedAt: Date.now(),
          };
          transcriptionRequests.push(parsed);
          return sendJson(res, await answerOf(() => transcription(parsed)));
        }
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        } catch {
          return fail(res, 400, 'the body is not JSON');
        }
        if (route === 'audio/speech') {
          const parsed: SpeechStubRequest = {
            model: String(body.model ?? ''),
            voice: String(body.voice ?? ''),
            input: String(body.input ?? ''),
            responseFormat: String(body.response_format ?? ''),
            body,
            headers: req.headers,
            receivedAt: Date.now(),
          };
          speechRequests.push(parsed);
          return sendAudio(res, await answerOf(() => speech(parsed)));
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
        send(res, await answerOf(() => current(parsed)));
      })();
    });
  });
  /** A `reply.*` or `{status, body}` answer, written; false for any other value. */
  const special = (res: ServerResponse, answer: unknown, content: (text: string) => void): boolean => {
    if (typeof answer === 'object' && answer !== null && REPLY in answer) {
      const r = answer as Reply;
      switch (r[REPLY]) {
        case 'raw':
          res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers }).end(r.body);
          return true;
        case 'content':
          content(r.content);
          return true;
        case 'hang':
          return true; // the socket stays open until the client gives up or the stub closes
        case 'drop':
          res.socket?.destroy();
          return true;
      }
    }
    if (isRawShape(answer)) {
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) })
        .end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      return true;
    }
    return false;
  };
  /** Audio: bytes as audio/wav; `reply.content(text)` as a 200 of that text. */
  const sendAudio = (res: ServerResponse, answer: unknown) => {
    const ok = (body: string | Uint8Array, type: string) => res.writeHead(200, { 'content-type': type }).end(body);
    if (special(res, answer, (text) => ok(text, 'text/plain'))) return;
    if (answer instanceof Uint8Array) return ok(answer, 'audio/wav');
    return fail(res, 500, 'the speech handler answered neither audio nor a reply');
  };
  /** A JSON body; `reply.content(text)` as a 200 of that text. */
  const sendJson = (res: ServerResponse, answer: unknown) => {
    const ok = (body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (special(res, answer, ok)) return;
    return ok(JSON.stringify(answer));
  };
  const send = (res: ServerResponse, answer: unknown) => {
    const completion = (content: string) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-stub-${requests.length}`,
          object: 'chat.completion',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        }),
      );
    if (special(res, answer, completion)) return;
    return completion(JSON.stringify(answer));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    speechRequests,
    transcriptionRequests,
    setHandler: (h) => {
      current = h;
    },
    setSpeechHandler: (h) => {
      speech = h;
    },
    setTranscriptionHandler: (h) => {
      transcription = h;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
