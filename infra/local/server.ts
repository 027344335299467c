import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { dispatch, findJob, invokeJob } from './gateway.js';
import { GATEWAY_BODIES } from '../../shared/http/errors.js';
import { consoleAnswer } from './console.js';

/** API Gateway's payload limit. */
export const MAX_BODY = 10 * 1024 * 1024;
/** How long a connection that is being refused may keep sending before it is cut. */
const LINGER_MS = 5000;
/**
 * The Lambda Invoke API, reachable only under the runtime's secret: the in-process Lambda
 * client's endpoint (LAMBDA_ENDPOINT) is `<url>/_lambda/<secret>`, so the SDK's paths carry it.
 */
const INVOKE_PATH = /^(?:\/_lambda\/([^/]*))?\/2015-03-31\/functions\/([^/]+)\/invocations$/;
export const INVOKE_PREFIX = '/_lambda';

export interface LocalServerOptions {
  /** Proof an invoke must carry (the path segment after `/_lambda/`). */
  invokeSecret: string;
  quiet?: boolean;
  /** While false, every request gets a 503 (the runtime is still starting its emulators). */
  isReady?: () => boolean;
}

type Body = { kind: 'ok'; bytes: Buffer } | { kind: 'tooLarge' } | { kind: 'aborted' };

/** Reads the body up to MAX_BODY; never rejects. Past the limit it stops keeping what arrives. */
function readBody(req: IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (body: Body) => {
      if (settled) return;
      settled = true;
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      req.off('data', onData);
      req.resume(); // what is still coming is read and dropped
      settle({ kind: 'tooLarge' });
    };
    req.on('data', onData);
    req.once('end', () => settle({ kind: 'ok', bytes: Buffer.concat(chunks) }));
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
  });
}

function json(status: number, error: string, message: string): { status: number; error: string; body: string } {
  return { status, error, body: JSON.stringify({ error, message }) };
}

function send(
  res: ServerResponse,
  answer: { status: number; body: string },
  headers: Record<string, string> = {},
): void {
  res.writeHead(answer.status, { 'Content-Type': 'application/json', ...headers }).end(answer.body);
}

/**
 * Answers before (or instead of) reading the whole body, so the client can read the answer: the
 * response goes out whole at once with `Connection: close`, the rest of the body is read and
 * dropped, and the connection ends once the client has sent it (or after LINGER_MS). Closing
 * while unread bytes arrive would reset the connection and could lose the answer.
 */
function answerAndClose(req: IncomingMessage, res: ServerResponse, answer: { status: number; body: string }): void {
  res.writeHead(answer.status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(answer.body)),
    Connection: 'close',
  });
  res.write(answer.body);
  const end = () => {
    clearTimeout(timer);
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(end, LINGER_MS);
  timer.unref();
  if (req.complete || req.destroyed) return void end();
  req.once('end', end);
  req.once('close', end);
  req.resume();
}

/** The path and query of an origin-form or absolute-form request target; undefined when it is not a URL. */
function parseTarget(target: string): URL | undefined {
  try {
    if (target.startsWith('/')) return new URL(`http://127.0.0.1${target}`);
    const url = new URL(target);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function declaredLength(req: IncomingMessage): number | undefined {
  const raw = req.headers['content-length'];
  return raw === undefined ? undefined : Number(raw);
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const TOO_LARGE = json(413, 'Payload Too Large', `request body over ${MAX_BODY} bytes (10 MB)`);

async function handle(req: IncomingMessage, res: ServerResponse, options: LocalServerOptions): Promise<void> {
  const started = Date.now();
  const log = (what: string, status: number | string) => {
    if (!options.quiet) console.log(`${req.method} ${what} → ${status} ${Date.now() - started} ms`);
  };
  const url = parseTarget(req.url ?? '/');
  if (!url) {
    answerAndClose(req, res, json(400, 'Bad Request', 'request target must be a path or an absolute http URL'));
    return log('(bad target)', 400);
  }
  if ((declaredLength(req) ?? 0) > MAX_BODY) {
    answerAndClose(req, res, TOO_LARGE);
    return log(url.pathname, 413);
  }
  if (options.isReady && !options.isReady()) {
    answerAndClose(
      req,
      res,
      json(503, 'Service Unavailable', 'the local runtime is still starting; retry in a moment'),
    );
    return log(url.pathname, 503);
  }
  const body = await readBody(req);
  if (body.kind === 'tooLarge') {
    answerAndClose(req, res, TOO_LARGE);
    return log(url.pathname, 413);
  }
  if (body.kind === 'aborted') {
    res.destroy();
    return log(url.pathname, 'client closed the connection before sending its body');
  }

  const invoke = req.method === 'POST' ? INVOKE_PATH.exec(url.pathname) : null;
  if (invoke) {
    // The secret never reaches the log.
    const path = url.pathname.replace(/^\/_lambda\/[^/]*/, '');
    const answer = await invokeAnswer(invoke[1], invoke[2]!, body.bytes.toString('utf8'), options.invokeSecret);
    send(res, answer, answer.headers);
    return log(path, answer.status);
  }

  const page = consoleAnswer(
    req.method ?? 'GET',
    url.pathname,
    req.headers.host,
    `http://127.0.0.1:${req.socket.localPort}`,
  );
  if (page) {
    res.writeHead(page.status, page.headers).end(req.method === 'HEAD' ? undefined : page.body);
    return log(url.pathname, page.status);
  }

  // A Map, then own properties: parameters named `__proto__` or `constructor` stay ordinary keys.
  const grouped = new Map<string, string[]>();
  for (const [k, v] of url.searchParams) grouped.set(k, [...(grouped.get(k) ?? []), v]);
  const query: Record<string, string[]> = Object.fromEntries(grouped);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  // The raw bytes: the gateway passes binary media types on untouched (protobuf, gzip).
  const out = await dispatch({
    method: req.method ?? 'GET',
    path: url.pathname,
    query,
    headers,
    body: body.bytes,
    sourceIp: req.socket.remoteAddress,
  });
  res.writeHead(out.statusCode, out.headers).end(out.bytes ?? out.body);
  log(`${url.pathname}${url.search}`, out.statusCode);
}

/** The Lambda Invoke API: 403 without the secret, 404 for a function that is not a job, else the job's result. */
async function invokeAnswer(
  secret: string | undefined,
  encodedName: string,
  payload: string,
  expected: string,
): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  if (!sameSecret(secret, expected)) {
    return {
      ...json(
        403,
        'Forbidden',
        'invoking a local function needs the runtime secret (the LAMBDA_ENDPOINT the runtime sets)',
      ),
      headers: { 'X-Amzn-ErrorType': 'AccessDeniedException' },
    };
  }
  let name: string;
  try {
    name = decodeURIComponent(encodedName);
  } catch {
    return {
      ...json(400, 'Bad Request', 'function name is not valid percent-encoded UTF-8'),
      headers: { 'X-Amzn-ErrorType': 'InvalidParameterValueException' },
    };
  }
  if (!findJob(name)) {
    return {
      ...json(404, 'Not Found', `no local function named ${name}`),
      headers: { 'X-Amzn-ErrorType': 'ResourceNotFoundException' },
    };
  }
  let event: unknown = {};
  if (payload) {
    try {
      event = JSON.parse(payload);
    } catch {
      return {
        ...json(400, 'Bad Request', 'invocation payload must be JSON'),
        headers: { 'X-Amzn-ErrorType': 'InvalidRequestContentException' },
      };
    }
  }
  try {
    const result = await invokeJob(name, event);
    return { status: 200, body: JSON.stringify(result ?? null), headers: {} };
  } catch (error) {
    // As Lambda reports a function's own failure: 200 with X-Amz-Function-Error.
    return {
      status: 200,
      body: JSON.stringify({ errorMessage: (error as Error).message }),
      headers: { 'X-Amz-Function-Error': 'Unhandled' },
    };
  }
}

const answered = new WeakSet<Socket>();

/**
 * A request Node could not parse (headers over 16 KB, malformed request line, timeouts): a JSON
 * answer written to the socket, which then ends. Node's own answers carry no body.
 */
function onClientError(error: NodeJS.ErrnoException & { reason?: string }, socket: Socket): void {
  // After a parse error Node hands every further chunk to the failed parser, which reports again.
  if (answered.has(socket)) return;
  answered.add(socket);
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? json(431, 'Request Header Fields Too Large', 'request line and headers must fit in 16 KB')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? json(408, 'Request Timeout', 'the request was not received in time')
        : json(400, 'Bad Request', `malformed HTTP request: ${error.reason ?? error.message}`);
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.error}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(answer.body)}\r\nConnection: close\r\n\r\n${answer.body}`,
  );
  // Read and drop what the client still sends, so closing does not reset the answer away.
  socket.on('data', () => undefined);
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * The local HTTP server: every route of the route table through the local gateway, the console
 * (`/`, `/console-config.json`, its built assets; infra/local/console.ts), plus the
 * Lambda Invoke API for job functions (used by the build-info probe, as in AWS). No request can
 * end the process: anything unexpected is logged and answered 500 without internals.
 */
export function createLocalServer(options: LocalServerOptions): Server {
  const server = createServer((req, res) => {
    req.on('error', () => undefined); // a client going away is handled where the body is read
    res.on('error', (error) =>
      console.error(`local server: writing the answer to ${req.method} ${req.url} failed: ${error.message}`),
    );
    handle(req, res, options).catch((error: unknown) => {
      console.error(`local server: ${req.method} ${req.url} failed unexpectedly`, error);
      if (res.headersSent) res.destroy();
      else send(res, { status: 500, body: JSON.stringify(GATEWAY_BODIES.default5xx) }, { Connection: 'close' });
    });
  });
  // `Expect: 100-continue`: refuse an oversized body before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if ((declaredLength(req) ?? 0) > MAX_BODY) {
      send(res, TOO_LARGE, { Connection: 'close' });
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  server.on('clientError', onClientError);
  return server;
}
