import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';

export interface RawResponse {
  /** 0 when the server answered nothing before the connection ended. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How the connection ended on the client's side: 'close', or the socket error code. */
  ended: string;
}

/**
 * Sends bytes over a plain TCP socket (so requests `fetch` would refuse to send go out as
 * written) and returns what came back once the server closes the connection.
 */
export function rawRequest(
  port: number,
  data: string | Buffer,
  options: { closeAfterWrite?: boolean; timeoutMs?: number } = {},
): Promise<RawResponse> {
  return new Promise((res, rej) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let ended = 'close';
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => (ended = e.code ?? e.message));
    socket.setTimeout(options.timeoutMs ?? 15_000, () => {
      socket.destroy();
      rej(
        new Error(
          `no end of the connection within ${options.timeoutMs ?? 15_000} ms; got ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`,
        ),
      );
    });
    socket.on('close', () => res({ ...parse(Buffer.concat(chunks)), ended }));
    socket.write(data, () => {
      if (options.closeAfterWrite) socket.destroy();
    });
  });
}

function parse(raw: Buffer): Omit<RawResponse, 'ended'> {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || split < 0) return { status: 0, headers: {}, body: text };
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let out = '';
    let rest = body;
    for (;;) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, eol), 16);
      if (!size) break;
      out += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    body = out;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Runs a TypeScript entry point of the project (`infra/local/…`) as `npm run` would, without npm. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<CliRun> {
  return new Promise((res, rej) => {
    const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
    for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`${script} ${args.join(' ')} did not exit within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}
